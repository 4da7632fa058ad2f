import { describe, expect, it } from 'vitest';
import { anthropicAdapter } from '../anthropic/adapter.js';
import { geminiAdapter } from '../gemini/adapter.js';
import type { ChatRequest } from '../spec.js';
import { vertexAdapterFor, vertexClaudeAdapter, vertexGeminiAdapter } from './adapter.js';

const PREFIX = 'https://us-east5-aiplatform.googleapis.com/v1/projects/my-project/locations/us-east5';
const CLAUDE = { baseUrl: PREFIX, routedModel: 'claude-sonnet-4-5@20250929' };
const GEMINI = { baseUrl: PREFIX, routedModel: 'gemini-2.5-flash' };

/** A tool-using turn with signed thinking and cache markers: what must reach Claude as on Anthropic. */
const AGENT_TURN: ChatRequest = {
  stream: false,
  includeUsage: false,
  messages: [
    { role: 'system', content: 'Be brief.', parts: [{ type: 'text', text: 'Be brief.', cacheControl: { type: 'ephemeral' } }] },
    { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
    {
      role: 'assistant',
      reasoningBlocks: [{ type: 'thinking', text: 'Call the tool.', signature: 'sig-from-anthropic' }],
      content: [],
      toolCalls: [{ id: 'toolu_01', name: 'get_weather', arguments: '{"city":"Paris"}' }],
    },
    { role: 'tool', toolCallId: 'toolu_01', content: [{ type: 'text', text: 'Sunny' }], cacheControl: { type: 'ephemeral' } },
  ],
  tools: [{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
  anthropicBetas: ['context-1m-2025-08-07', 'interleaved-thinking-2025-05-14'],
};

describe('Claude on Vertex', () => {
  it('posts to :rawPredict, and to :streamRawPredict for a stream, keeping the @ of the model', () => {
    expect(vertexClaudeAdapter.buildRequest(AGENT_TURN, CLAUDE).url).toBe(`${PREFIX}/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict`);
    expect(vertexClaudeAdapter.buildRequest({ ...AGENT_TURN, stream: true }, CLAUDE).url).toBe(
      `${PREFIX}/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict`,
    );
  });

  it("sends Anthropic's body with the version in place of the model: cache markers, tools and signed thinking as on Anthropic", () => {
    const vertex = JSON.parse(vertexClaudeAdapter.buildRequest(AGENT_TURN, CLAUDE).body) as Record<string, unknown>;
    const { model, ...anthropic } = JSON.parse(anthropicAdapter.buildRequest(AGENT_TURN, { baseUrl: 'https://api.anthropic.com', routedModel: 'claude-sonnet-4-5' }).body) as Record<string, unknown>;
    expect(model).toBe('claude-sonnet-4-5');
    expect(vertex).toEqual({ anthropic_version: 'vertex-2023-10-16', ...anthropic });
    expect(JSON.stringify(vertex)).toContain('"signature":"sig-from-anthropic"');
    expect(JSON.stringify(vertex)).toContain('"cache_control":{"type":"ephemeral"}');
  });

  it('asks for the stream in the body as Anthropic does', () => {
    expect(JSON.parse(vertexClaudeAdapter.buildRequest({ ...AGENT_TURN, stream: true }, CLAUDE).body)).toMatchObject({ stream: true });
  });

  it('sends beta flags in the anthropic-beta header, and no anthropic-version header', () => {
    const { headers } = vertexClaudeAdapter.buildRequest(AGENT_TURN, CLAUDE);
    expect(headers).toEqual({ 'content-type': 'application/json', 'anthropic-beta': 'context-1m-2025-08-07,interleaved-thinking-2025-05-14' });
  });

  it('keeps a caller-sent anthropic_version or model from replacing what Vertex needs', () => {
    const request: ChatRequest = { ...AGENT_TURN, passthrough: { dialect: 'anthropic', fields: { anthropic_version: 'bedrock-2023-05-31', top_k: 5 } } };
    const body = JSON.parse(vertexClaudeAdapter.buildRequest(request, CLAUDE).body) as Record<string, unknown>;
    expect(body).toMatchObject({ anthropic_version: 'vertex-2023-10-16', top_k: 5 });
    expect(body).not.toHaveProperty('model');
  });
});

describe('Gemini on Vertex', () => {
  it('posts to :generateContent and :streamGenerateContent?alt=sse under the google publisher', () => {
    expect(vertexGeminiAdapter.buildRequest(AGENT_TURN, GEMINI).url).toBe(`${PREFIX}/publishers/google/models/gemini-2.5-flash:generateContent`);
    expect(vertexGeminiAdapter.buildRequest({ ...AGENT_TURN, stream: true }, GEMINI).url).toBe(
      `${PREFIX}/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
    );
  });

  it("sends the Gemini API's body unchanged", () => {
    const vertex = vertexGeminiAdapter.buildRequest(AGENT_TURN, GEMINI);
    const gemini = geminiAdapter.buildRequest(AGENT_TURN, { baseUrl: 'https://generativelanguage.googleapis.com/v1beta', routedModel: 'gemini-2.5-flash' });
    expect(vertex.body).toBe(gemini.body);
    expect(vertex.headers).toEqual({ 'content-type': 'application/json' });
  });

  it('embeds through :predict, one instance per input, asking for the dimensions given', () => {
    const built = vertexGeminiAdapter.embeddings?.buildRequest({ input: ['first', 'second'], dimensions: 256, encodingFormat: 'float' }, { baseUrl: PREFIX, routedModel: 'text-embedding-005' });
    expect(built?.url).toBe(`${PREFIX}/publishers/google/models/text-embedding-005:predict`);
    expect(JSON.parse(built?.body ?? '')).toEqual({ instances: [{ content: 'first' }, { content: 'second' }], parameters: { outputDimensionality: 256 } });
  });

  it('refuses token arrays, which Vertex cannot embed, as an invalid request', () => {
    expect(() => vertexGeminiAdapter.embeddings?.buildRequest({ input: [[1, 2]], encodingFormat: 'float' }, { baseUrl: PREFIX, routedModel: 'text-embedding-005' })).toThrow(
      /text only/,
    );
  });

  it("answers an embeddings body without predictions as the provider's failure", () => {
    expect(() => vertexGeminiAdapter.embeddings?.parseResponse({ error: 'nope' })).toThrow(/no predictions/);
  });
});

describe('the adapter for a Vertex model', () => {
  it('is Claude for claude-* models and Gemini for every other', () => {
    expect(vertexAdapterFor('claude-opus-4-1@20250805')).toBe(vertexClaudeAdapter);
    expect(vertexAdapterFor('gemini-2.5-pro')).toBe(vertexGeminiAdapter);
    expect(vertexAdapterFor('text-embedding-005')).toBe(vertexGeminiAdapter);
  });

  it('encodes what else in a model name means something in a path', () => {
    expect(vertexClaudeAdapter.buildRequest(AGENT_TURN, { baseUrl: PREFIX, routedModel: 'claude-x@1?fail=429' }).url).toBe(
      `${PREFIX}/publishers/anthropic/models/claude-x@1%3Ffail%3D429:rawPredict`,
    );
  });
});
