import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockProvider, type MockProvider } from '../../src/mock/mock-provider.js';
import { bedrockBody, bedrockPath, decodeEventStream, messagesBody, messagesPath, parseFrames, postJson, readBody } from './helpers.js';

let mock: MockProvider;

beforeAll(async () => {
  mock = await startMockProvider();
});

afterAll(async () => {
  await mock.close();
});

const THINKING = { thinking: { type: 'enabled', budget_tokens: 1024 } };
const BEDROCK_MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const SIGNED = /^mock-signed-by-(anthropic|bedrock)\.\d+$/;

/** A second turn whose first answer's thinking carries `signature`, in Anthropic's shape. */
function anthropicTurn(signature: string, extra: Record<string, unknown> = THINKING): Record<string, unknown> {
  return messagesBody('claude-sonnet-4-5', {
    ...extra,
    messages: [
      { role: 'user', content: 'Say hello to the mock.' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'Thinking it over.', signature }, { type: 'text', text: 'Hello.' }] },
      { role: 'user', content: 'Again.' },
    ],
  });
}

/** The same turn in Converse's shape. */
function bedrockTurn(signature: string): Record<string, unknown> {
  return bedrockBody({
    messages: [
      { role: 'user', content: [{ text: 'Say hello to the mock.' }] },
      { role: 'assistant', content: [{ reasoningContent: { reasoningText: { text: 'Thinking it over.', signature } } }, { text: 'Hello.' }] },
      { role: 'user', content: [{ text: 'Again.' }] },
    ],
  });
}

describe('a Claude home signs its thinking', () => {
  it('Anthropic: the answer starts with a thinking block signed by the anthropic home, streamed as a signature_delta too', async () => {
    const message = (await (await postJson(`${mock.url}${messagesPath}`, messagesBody('claude-sonnet-4-5', THINKING))).json()) as { content: { type: string; signature?: string }[] };
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect(message.content[0]!.signature).toMatch(SIGNED);
    expect(message.content[0]!.signature).toContain('-by-anthropic.');

    const frames = parseFrames((await readBody(await postJson(`${mock.url}${messagesPath}`, messagesBody('claude-sonnet-4-5', { ...THINKING, stream: true })))).text);
    const deltas = frames.filter((frame) => frame.event === 'content_block_delta').map((frame) => JSON.parse(frame.data) as { index: number; delta: { type: string; signature?: string } });
    expect(deltas[0]).toMatchObject({ index: 0, delta: { type: 'thinking_delta' } });
    expect(deltas[1]).toMatchObject({ index: 0, delta: { type: 'signature_delta', signature: expect.stringContaining('-by-anthropic.') as unknown } });
    expect(deltas.slice(2).every((delta) => delta.index === 1 && delta.delta.type === 'text_delta')).toBe(true);
  });

  it('Bedrock: the answer starts with reasoningContent signed by the bedrock home, streamed as text then signature', async () => {
    const body = bedrockBody({ additionalModelRequestFields: THINKING });
    const answer = (await (await postJson(`${mock.url}${bedrockPath(BEDROCK_MODEL)}`, body)).json()) as { output: { message: { content: Record<string, { reasoningText?: { signature: string } }>[] } } };
    expect(answer.output.message.content[0]!.reasoningContent!.reasoningText!.signature).toContain('-by-bedrock.');
    expect(answer.output.message.content[1]).toHaveProperty('text');

    const messages = decodeEventStream((await readBody(await postJson(`${mock.url}${bedrockPath(BEDROCK_MODEL, true)}`, body))).bytes);
    const payloads = messages.filter((message) => message.headers[':event-type'] === 'contentBlockDelta').map((message) => JSON.parse(message.payload) as { contentBlockIndex: number; delta: Record<string, unknown> });
    expect(payloads[0]).toMatchObject({ contentBlockIndex: 0, delta: { reasoningContent: { text: 'Thinking it over.' } } });
    expect(payloads[1]).toMatchObject({ contentBlockIndex: 0, delta: { reasoningContent: { signature: expect.stringContaining('-by-bedrock.') as unknown } } });
    expect(payloads.slice(2).every((payload) => payload.contentBlockIndex === 1 && 'text' in payload.delta)).toBe(true);
  });

  it('answers without thinking where none was asked for, and for a model that is not Claude', async () => {
    const plain = (await (await postJson(`${mock.url}${messagesPath}`, messagesBody('claude-sonnet-4-5'))).json()) as { content: { type: string }[] };
    expect(plain.content.map((block) => block.type)).toEqual(['text']);
    const other = (await (await postJson(`${mock.url}${messagesPath}`, messagesBody('gpt-mock', THINKING))).json()) as { content: { type: string }[] };
    expect(other.content.map((block) => block.type)).toEqual(['text']);
  });
});

describe('a Claude home refuses thinking another home signed', () => {
  it("Anthropic refuses the bedrock home's signature with its 400, and takes its own and signatures it did not make", async () => {
    const refused = await postJson(`${mock.url}${messagesPath}`, anthropicTurn('mock-signed-by-bedrock.7'));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: 'messages.1.content.0: Invalid `signature` in `thinking` block' } });
    expect((await postJson(`${mock.url}${messagesPath}`, anthropicTurn('mock-signed-by-anthropic.7'))).status).toBe(200);
    expect((await postJson(`${mock.url}${messagesPath}`, anthropicTurn('EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDdyUJX0Y'))).status).toBe(200);
  });

  it("Bedrock refuses the anthropic home's signature as a ValidationException, and takes its own", async () => {
    const refused = await postJson(`${mock.url}${bedrockPath(BEDROCK_MODEL)}`, bedrockTurn('mock-signed-by-anthropic.7'));
    expect(refused.status).toBe(400);
    expect(refused.headers.get('x-amzn-errortype')).toMatch(/^ValidationException:/);
    expect(await refused.json()).toEqual({ message: 'messages.1.content.0: Invalid `signature` in `thinking` block' });
    expect((await postJson(`${mock.url}${bedrockPath(BEDROCK_MODEL)}`, bedrockTurn('mock-signed-by-bedrock.7'))).status).toBe(200);
  });

  it('with thinking on, refuses a tool loop whose last assistant turn does not start with its thinking', async () => {
    const loop = (first: object[]) =>
      messagesBody('claude-sonnet-4-5', {
        ...THINKING,
        messages: [
          { role: 'user', content: 'Look it up.' },
          { role: 'assistant', content: [...first, { type: 'tool_use', id: 'toolu_1', name: 'look', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'found' }] },
        ],
      });
    const refused = await postJson(`${mock.url}${messagesPath}`, loop([]));
    expect(refused.status).toBe(400);
    const { error } = (await refused.json()) as { error: { type: string; message: string } };
    expect(error.type).toBe('invalid_request_error');
    expect(error.message).toMatch(/^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`\. When `thinking` is enabled/);
    expect((await postJson(`${mock.url}${messagesPath}`, loop([{ type: 'thinking', thinking: 'Hmm.', signature: 'mock-signed-by-anthropic.1' }]))).status).toBe(200);
  });
});
