import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import type { ChatMessage, ChatRequest, TextPart } from '../providers/spec.js';
import { estimateInputTokens } from './token-estimator.js';

function chat(messages: ChatMessage[], extra: Partial<ChatRequest> = {}): ChatRequest {
  return { messages, stream: false, includeUsage: false, ...extra };
}

function text(value: string): TextPart {
  return { type: 'text', text: value };
}

describe('estimateInputTokens', () => {
  it('counts a one-message chat with the documented framing', () => {
    // 3 to prime the reply + 3 around the message + 1 for `user` + 2 for `hello world`.
    expect(estimateInputTokens(chat([{ role: 'user', content: [text('hello world')] }]))).toBe(9);
  });

  it('matches the prompt tokens OpenAI reports for gpt-4o on its token-counting example', () => {
    // The cookbook's few-shot example (its named system messages carried here by user and
    // assistant roles, one token each like `system`): the API reports 124 prompt tokens.
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You are a helpful, pattern-following assistant that translates corporate jargon into plain English.' },
      { role: 'user', name: 'example_user', content: [text('New synergies will help drive top-line growth.')] },
      { role: 'assistant', name: 'example_assistant', content: [text('Things working well together will increase revenue.')] },
      {
        role: 'user',
        name: 'example_user',
        content: [text("Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage.")],
      },
      { role: 'assistant', name: 'example_assistant', content: [text("Let's talk later when we're less busy about how to do better.")] },
      { role: 'user', content: [text("This late pivot means we don't have time to boil the ocean for the client deliverable.")] },
    ];
    expect(estimateInputTokens(chat(messages))).toBe(124);
  });

  it('counts tool definitions, tool calls and tool results', () => {
    const base = chat([{ role: 'user', content: [text('What is the weather in Paris?')] }]);
    const tool = { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } };
    const withTool = chat(base.messages, { tools: [tool] });
    expect(estimateInputTokens(withTool) - estimateInputTokens(base)).toBe(countTokens(JSON.stringify(tool)));

    const withCall = chat([
      ...base.messages,
      { role: 'assistant', content: [], toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
      { role: 'tool', toolCallId: 'call_1', content: [text('18 C, clear')] },
    ]);
    const callTokens = 3 + countTokens('assistant') + countTokens('get_weather') + countTokens('{"city":"Paris"}');
    const resultTokens = 3 + countTokens('tool') + countTokens('18 C, clear');
    expect(estimateInputTokens(withCall) - estimateInputTokens(base)).toBe(callTokens + resultTokens);
  });

  it('treats special-token text in a prompt as plain text', () => {
    const request = chat([{ role: 'user', content: [text('<|endoftext|>')] }]);
    expect(estimateInputTokens(request)).toBe(7 + countTokens('<|endoftext|>', { disallowedSpecial: new Set() }));
  });

  it('charges an image by its detail, not by the length of its data URL', () => {
    const dataUrl = `data:image/png;base64,${'A'.repeat(1_000_000)}`;
    const textOnly = estimateInputTokens(chat([{ role: 'user', content: [text('describe')] }]));
    const high = estimateInputTokens(chat([{ role: 'user', content: [text('describe'), { type: 'image', url: dataUrl }] }]));
    const low = estimateInputTokens(chat([{ role: 'user', content: [text('describe'), { type: 'image', url: dataUrl, detail: 'low' }] }]));
    expect(high - textOnly).toBe(1_600);
    expect(low - textOnly).toBe(85);
  });

  it('counts long prose exactly although it is counted in slices', () => {
    const words = ['gateway', 'request', 'token', 'budget', 'reservation', 'stream', 'provider', 'failover', 'is', 'the', 'a', '42'];
    const prose = Array.from({ length: 4_000 }, (_, i) => words[(i * 7 + (i >> 3)) % words.length]).join(' ');
    expect(prose.length).toBeLessThan(32_768);
    expect(estimateInputTokens(chat([{ role: 'system', content: prose }]))).toBe(7 + countTokens(prose));
  });

  it('counts a system prompt seen before the same, and the new turn that follows it by its own text', () => {
    const system = 'You are a coding agent. Use the tools to read and edit files. '.repeat(200);
    const first = estimateInputTokens(chat([{ role: 'system', content: system }, { role: 'user', content: [text('hello world')] }]));
    const again = estimateInputTokens(chat([{ role: 'system', content: system }, { role: 'user', content: [text('hello world')] }]));
    const longer = estimateInputTokens(chat([{ role: 'system', content: system }, { role: 'user', content: [text('hello world, and goodbye')] }]));
    expect(again).toBe(first);
    expect(first).toBe(3 + 3 + countTokens('system') + countTokens(system) + 3 + countTokens('user') + countTokens('hello world'));
    expect(longer - first).toBe(countTokens('hello world, and goodbye') - countTokens('hello world'));
  });

  it('stays fast and close on long runs without spaces', () => {
    // Unsliced, 180,000 characters of emoji take the encoder over a minute.
    const emoji = '😀🎉🚀'.repeat(30_000);
    const startedAtMs = performance.now();
    const estimate = estimateInputTokens(chat([{ role: 'system', content: emoji }])) - 7;
    expect(performance.now() - startedAtMs).toBeLessThan(2_000);
    // Each of these emoji is about 1.67 tokens (150,000 for the whole run when counted at once).
    expect(Math.abs(estimate - 150_000) / 150_000).toBeLessThan(0.01);
  });

  it('extrapolates past the exact allowance at the ratio counted so far', () => {
    // `xxxxxxxx` is one token: 8 characters a token throughout.
    const estimate = estimateInputTokens(chat([{ role: 'system', content: 'x'.repeat(200_000) }])) - 7;
    expect(Math.abs(estimate - 25_000) / 25_000).toBeLessThan(0.001);
  });
});
