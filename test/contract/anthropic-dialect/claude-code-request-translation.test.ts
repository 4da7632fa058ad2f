import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { parseAnthropicMessages } from '../../../src/dialects/anthropic-messages/parse-anthropic-messages.js';
import { anthropicAdapter } from '../../../src/providers/anthropic/adapter.js';
import { bedrockAdapter } from '../../../src/providers/bedrock/adapter.js';
import { geminiAdapter } from '../../../src/providers/gemini/adapter.js';
import { openAiAdapter } from '../../../src/providers/openai/adapter.js';
import type { ChatRequest, ProviderAdapter } from '../../../src/providers/spec.js';

type Json = Record<string, unknown>;

const SCHEMA = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] };

/** What Claude Code sends, beta header included (as the SDK writes it: one comma-separated value). */
const HEADERS = { 'anthropic-beta': 'claude-code-20250219, context-management-2025-06-27' };
const BODY = {
  model: 'sonnet',
  max_tokens: 32_000,
  system: 'You are Claude Code.',
  messages: [
    { role: 'user', content: 'Name this session.' },
    { role: 'system', content: [{ type: 'text', text: 'Reminder: be brief.', citations: null }], clear_at: 'next_user_message' },
    { role: 'assistant', content: 'Sure.' },
    { role: 'system', content: 'Answer as JSON.', output_config: { effort: 'low' } },
    { role: 'user', content: 'Go.' },
    { role: 'system', output_config: { effort: 'high' } },
  ],
  thinking: { type: 'adaptive' },
  context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
  output_config: { effort: 'high', format: { type: 'json_schema', schema: SCHEMA } },
};

function parsed(body: Json = BODY, headers: Json = HEADERS): ChatRequest {
  return parseAnthropicMessages(body, headers as Record<string, string>).request;
}

function built(adapter: ProviderAdapter, routedModel: string, request = parsed()): { headers: Record<string, string>; body: Json } {
  const upstream = adapter.buildRequest(request, { baseUrl: 'http://127.0.0.1:1/v1', routedModel });
  return { headers: upstream.headers, body: JSON.parse(upstream.body) as Json };
}

describe('the Anthropic dialect as Claude Code speaks it', () => {
  it('parses the beta flags, the thinking request and structured output into the canonical request', () => {
    const request = parsed();
    expect(request.anthropicBetas).toEqual(['claude-code-20250219', 'context-management-2025-06-27']);
    expect(request.shownReasoning).toBe('signed');
    expect(request.responseFormat).toEqual({ type: 'json_schema', name: 'output', schema: SCHEMA });
    expect(parsed({ ...BODY, thinking: { type: 'disabled' } }).shownReasoning).toBe('none');
    expect(parsed(BODY, {}).anthropicBetas).toBeUndefined();
  });

  it('marks which system entries the model still reads', () => {
    const entries = parsed().messages.filter((message) => message.role === 'system' && message.conversationEntry);
    expect(entries.map((entry) => entry.role === 'system' && [entry.content, entry.conversationEntry!.shown])).toEqual([
      ['Reminder: be brief.', false],
      ['Answer as JSON.', true],
      ['', false],
    ]);
  });

  it('an Anthropic target gets the entries exactly as sent, the caller\'s output_config and the beta header', () => {
    const { headers, body } = built(anthropicAdapter, 'claude-sonnet-4-5');
    expect(headers['anthropic-beta']).toBe('claude-code-20250219,context-management-2025-06-27');
    expect(body.messages).toEqual([
      { role: 'user', content: 'Name this session.' },
      BODY.messages[1],
      { role: 'assistant', content: 'Sure.' },
      BODY.messages[3],
      { role: 'user', content: 'Go.' },
      BODY.messages[5],
    ]);
    expect(body.system).toBe('You are Claude Code.');
    expect(body.output_config).toEqual(BODY.output_config);
    expect(body.thinking).toEqual(BODY.thinking);
    expect(body.context_management).toEqual(BODY.context_management);
  });

  it('an OpenAI target gets the shown entry in place, the schema as response_format, and nothing Anthropic-only', () => {
    const { headers, body } = built(openAiAdapter, 'gpt-4.1');
    expect(headers['anthropic-beta']).toBeUndefined();
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are Claude Code.' },
      { role: 'user', content: 'Name this session.' },
      { role: 'assistant', content: 'Sure.' },
      { role: 'system', content: 'Answer as JSON.' },
      { role: 'user', content: 'Go.' },
    ]);
    expect(body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'output', schema: SCHEMA } });
    for (const field of ['thinking', 'context_management', 'output_config', 'reasoning_effort']) expect(body).not.toHaveProperty(field);
  });

  it('a Gemini target gets the shown entry in its system instructions and the schema as its response schema', () => {
    const { body } = built(geminiAdapter, 'gemini-2.5-pro');
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'You are Claude Code.' }, { text: 'Answer as JSON.' }] });
    expect(body.generationConfig).toMatchObject({ responseMimeType: 'application/json', responseJsonSchema: SCHEMA });
  });

  it('Claude on Bedrock gets the shown entry in system and the betas as anthropic_beta; other Bedrock models no betas', () => {
    const claude = built(bedrockAdapter, 'us.anthropic.claude-sonnet-4-5-20250929-v1:0');
    expect(claude.body.system).toEqual([{ text: 'You are Claude Code.' }, { text: 'Answer as JSON.' }]);
    expect(claude.body.additionalModelRequestFields).toEqual({ anthropic_beta: ['claude-code-20250219', 'context-management-2025-06-27'] });
    expect(claude.headers['anthropic-beta']).toBeUndefined();
    expect(built(bedrockAdapter, 'amazon.nova-pro-v1:0').body).not.toHaveProperty('additionalModelRequestFields');
  });

  it('refuses what it cannot carry with a 400 naming the field', () => {
    const refused = (body: Json): GatewayError => {
      try {
        parsed(body);
      } catch (error) {
        if (error instanceof GatewayError) return error;
      }
      throw new Error('accepted');
    };
    const toolAddition = { ...BODY, messages: [{ role: 'system', content: [{ type: 'tool_addition', tool: { name: 'x' } }] }] };
    expect(refused(toolAddition)).toMatchObject({ status: 400, param: 'messages[0].content' });
    expect(refused({ ...BODY, output_config: { format: { type: 'yaml' } } })).toMatchObject({ status: 400, param: 'output_config.format.type' });
    expect(refused({ ...BODY, thinking: 'on' })).toMatchObject({ status: 400, param: 'thinking' });
    expect(refused({ ...BODY, messages: [{ role: 'system', content: 'x', clear_at: 'sometime' }] })).toMatchObject({ status: 400, param: 'messages[0].clear_at' });
  });
});
