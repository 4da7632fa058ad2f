import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat } from '../../support/start-gateway.js';
import { fetchRecord, sseContent } from '../scenario-helpers.js';
import { startVertexGateway, type VertexGateway } from './vertex-gateway.js';

/**
 * `provider: vertex` from a config that sets only its project, location and key: Claude on
 * Anthropic's publisher and Gemini on Google's, streamed and not, forced tools, and embeddings,
 * all on one access token exchanged at the key's own token_uri (docs/providers.md, Vertex AI).
 */
let vx: VertexGateway;

beforeAll(async () => {
  vx = await startVertexGateway(`
connections:
routes:
  vx-claude: { targets: [{ connection: vertex, model: "claude-sonnet-4-5@20250929" }] }
  vx-gemini: { targets: [{ connection: vertex, model: gemini-2.5-flash }] }
  vx-embed: { targets: [{ connection: vertex, model: text-embedding-005 }] }
`);
});
afterAll(() => vx.close());

const PREFIX = '/v1/projects/switchyard-test/locations/us-east5/publishers';
const weather = { type: 'function', function: { name: 'get_weather', description: 'The weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } };

for (const [route, publisher, model] of [
  ['vx-claude', 'anthropic', 'claude-sonnet-4-5@20250929'],
  ['vx-gemini', 'google', 'gemini-2.5-flash'],
] as const) {
  for (const stream of [false, true]) {
    it(`${route}: a ${stream ? 'streamed' : 'whole'} answer comes from ${publisher}'s publisher path on Vertex, billed and recorded as provider vertex`, async () => {
      vx.vertex.reset();
      const response = await postChat(vx.gateway.url, { model: route, stream, messages: [{ role: 'user', content: 'hello' }] });
      const body = await response.text();
      expect(response.status, body).toBe(200);
      expect(response.headers.get('x-switchyard-served-by')).toBe(`vertex/${model}`);
      const text = stream ? sseContent(body) : (JSON.parse(body) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
      expect(text).not.toBe('');

      const [attempt] = vx.vertex.attempts;
      const method = publisher === 'anthropic' ? (stream ? 'streamRawPredict' : 'rawPredict') : stream ? 'streamGenerateContent' : 'generateContent';
      expect(attempt!.path).toBe(`${PREFIX}/${publisher}/models/${model}:${method}`);
      // Every request of the file rides the one token exchanged at the key's token_uri.
      expect(attempt!.headers.authorization).toBe('Bearer [token 1]');
      if (publisher === 'anthropic') {
        expect(attempt!.body).toMatchObject({ anthropic_version: 'vertex-2023-10-16' });
        expect(attempt!.body).not.toHaveProperty('model');
      }
      const record = await fetchRecord(vx.gateway.url, response.headers.get('x-request-id')!);
      expect(record.attempts).toMatchObject([{ provider: 'vertex', connection: 'vertex', model, kind: 'ok' }]);
      expect(record.cost_usd).toBeGreaterThan(0);
    });
  }

  it(`${route}: a forced tool is called through Vertex, whole and streamed`, async () => {
    for (const stream of [false, true]) {
      const response = await postChat(vx.gateway.url, {
        model: route,
        stream,
        messages: [{ role: 'user', content: 'weather in Paris?' }],
        tools: [weather],
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
      });
      const body = await response.text();
      expect(response.status, body).toBe(200);
      if (stream) {
        expect(body).toContain('"name":"get_weather"');
        expect(body).toContain('"finish_reason":"tool_calls"');
      } else {
        const choice = (JSON.parse(body) as { choices: { finish_reason: string; message: { tool_calls: { function: { name: string; arguments: string } }[] } }[] }).choices[0]!;
        expect(choice.finish_reason).toBe('tool_calls');
        expect(choice.message.tool_calls[0]!.function.name).toBe('get_weather');
        expect(JSON.parse(choice.message.tool_calls[0]!.function.arguments)).toHaveProperty('city');
      }
    }
  });
}

it('embeddings go to :predict on Vertex, one vector per input in order', async () => {
  vx.vertex.reset();
  const response = await fetch(`${vx.gateway.url}/v1/embeddings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'vx-embed', input: ['first text', 'second text'] }),
    signal: AbortSignal.timeout(15_000),
  });
  const body = (await response.json()) as { data: { index: number; embedding: number[] }[]; usage: { prompt_tokens: number } };
  expect(response.status).toBe(200);
  expect(body.data.map((entry) => entry.index)).toEqual([0, 1]);
  expect(body.data[0]!.embedding.length).toBeGreaterThan(0);
  expect(body.data[0]!.embedding).not.toEqual(body.data[1]!.embedding);
  expect(body.usage.prompt_tokens).toBeGreaterThan(0);
  expect(vx.vertex.attempts.map((attempt) => [attempt.path, attempt.headers.authorization])).toEqual([[`${PREFIX}/google/models/text-embedding-005:predict`, 'Bearer [token 1]']]);
});
