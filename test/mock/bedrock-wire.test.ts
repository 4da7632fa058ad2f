import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockAnswerText, startMockProvider, type MockProvider } from '../../src/mock/mock-provider.js';
import { bedrockBody, bedrockPath, decodeEventStream, eventTypes, postJson, readBody } from './helpers.js';

let mock: MockProvider;

beforeAll(async () => {
  mock = await startMockProvider();
});

beforeEach(() => {
  mock.reset();
});

afterAll(async () => {
  await mock.close();
});

async function streamMessages(model: string): Promise<ReturnType<typeof decodeEventStream>> {
  const response = await postJson(`${mock.url}${bedrockPath(model, true)}`, bedrockBody());
  expect(response.headers.get('content-type')).toBe('application/vnd.amazon.eventstream');
  const read = await readBody(response);
  expect(read.ended).toBe(true);
  return decodeEventStream(read.bytes);
}

/** The generated frames of converse-stream-frames.hex.txt, by the comment line above each. */
function fixtureFrames(): Map<string, string> {
  const path = new URL('../contract/bedrock/__fixtures__/converse-stream-frames.hex.txt', import.meta.url);
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '');
  const frames = new Map<string, string>();
  lines.forEach((line, index) => {
    const comment = lines[index - 1];
    if (!line.startsWith('#') && comment?.startsWith('# ')) frames.set(comment.slice(2).split('  ')[0]!, line);
  });
  return frames;
}

describe('Bedrock converse', () => {
  it('answers in the Converse response shape with x-amzn-requestid', async () => {
    // System (8 characters) + message text (22 characters): ceil(30 / 4) = 8 input tokens.
    const body = bedrockBody({ system: [{ text: 'Be brief' }], inferenceConfig: { maxTokens: 64 } });
    const response = await postJson(`${mock.url}${bedrockPath('bedrock-mock?chunks=4')}`, body);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-amzn-requestid')).toBe('req_mock_1');
    expect(await response.json()).toEqual({
      metrics: { latencyMs: 0 },
      output: { message: { content: [{ text: mockAnswerText(4) }], role: 'assistant' } },
      stopReason: 'end_turn',
      usage: {
        cacheReadInputTokenCount: 0,
        cacheReadInputTokens: 0,
        cacheWriteInputTokenCount: 0,
        cacheWriteInputTokens: 0,
        inputTokens: 8,
        outputTokens: 4,
        serverToolUsage: {},
        totalTokens: 12,
      },
    });
  });

  it('counts the text inside toolResult blocks', async () => {
    const body = {
      messages: [
        { role: 'user', content: [{ toolResult: { toolUseId: 't', content: [{ text: 'abcdefgh' }], status: 'success' } }] },
      ],
    };
    const answer = (await (await postJson(`${mock.url}${bedrockPath('bedrock-mock')}`, body)).json()) as {
      usage: { inputTokens: number };
    };
    expect(answer.usage.inputTokens).toBe(2);
  });

  it('answers tool_call with a toolUse block and stopReason tool_use', async () => {
    const response = await postJson(`${mock.url}${bedrockPath('bedrock-mock?tool_call=get_weather')}`, bedrockBody());
    const answer = (await response.json()) as { output: { message: { content: unknown[] } }; stopReason: string };
    expect(answer.stopReason).toBe('tool_use');
    expect(answer.output.message.content).toEqual([
      { toolUse: { toolUseId: 'tooluse_mock_1', name: 'get_weather', input: { city: 'Paris', unit: 'celsius' } } },
    ]);
  });

  it('maps finish directives onto stop reasons', async () => {
    const reasons: string[] = [];
    for (const finish of ['length', 'content_filter', 'stop']) {
      const response = await postJson(`${mock.url}${bedrockPath(`bedrock-mock?finish=${finish}`)}`, bedrockBody());
      reasons.push(((await response.json()) as { stopReason: string }).stopReason);
    }
    expect(reasons).toEqual(['max_tokens', 'content_filtered', 'end_turn']);
  });
});

describe('Bedrock converse-stream', () => {
  it('streams binary event-stream messages in the real order, usage only in the closing metadata', async () => {
    const messages = await streamMessages('bedrock-mock?chunks=3');
    expect(eventTypes(messages)).toEqual([
      'messageStart',
      'contentBlockDelta',
      'contentBlockDelta',
      'contentBlockDelta',
      'contentBlockStop',
      'messageStop',
      'metadata',
    ]);
    messages.forEach((message) => {
      expect(message.headers[':message-type']).toBe('event');
      expect(message.headers[':content-type']).toBe('application/json');
    });
    const payloads = messages.map((message) => JSON.parse(message.payload) as Record<string, unknown>);
    expect(payloads[0]).toEqual({ role: 'assistant' });
    expect(payloads[1]).toEqual({ contentBlockIndex: 0, delta: { text: 'w0' }, p: expect.stringMatching(/^[a-z]+$/) as unknown });
    expect(payloads.slice(1, 4).map((payload) => (payload.delta as { text: string }).text).join('')).toBe(mockAnswerText(3));
    expect(payloads[4]).toEqual({ contentBlockIndex: 0 });
    expect(payloads[5]).toEqual({ stopReason: 'end_turn' });
    expect(payloads[6]).toEqual({
      usage: { inputTokens: 6, outputTokens: 3, serverToolUsage: {}, totalTokens: 9 },
      metrics: { latencyMs: 0 },
    });
  });

  it('frames messageStart, contentBlockStop and messageStop byte for byte like the reference vectors', async () => {
    const response = await postJson(`${mock.url}${bedrockPath('bedrock-mock?chunks=1', true)}`, bedrockBody());
    const bytes = (await readBody(response)).bytes;
    const hex = Buffer.from(bytes).toString('hex');
    const fixtures = fixtureFrames();
    for (const name of [':event-type=messageStart', ':event-type=contentBlockStop', ':event-type=messageStop']) {
      const frame = fixtures.get(name);
      expect(frame, name).toBeDefined();
      expect(hex).toContain(frame);
    }
  });

  it('streams a tool call as contentBlockStart plus toolUse input fragments', async () => {
    const messages = await streamMessages('bedrock-mock?tool_call=get_weather');
    expect(eventTypes(messages)).toEqual([
      'messageStart',
      'contentBlockStart',
      'contentBlockDelta',
      'contentBlockDelta',
      'contentBlockDelta',
      'contentBlockStop',
      'messageStop',
      'metadata',
    ]);
    const payloads = messages.map((message) => JSON.parse(message.payload) as Record<string, unknown>);
    expect(payloads[1]).toEqual({
      contentBlockIndex: 0,
      start: { toolUse: { toolUseId: 'tooluse_mock_1', name: 'get_weather' } },
    });
    const input = payloads
      .slice(2, 5)
      .map((payload) => (payload.delta as { toolUse: { input: string } }).toolUse.input)
      .join('');
    expect(JSON.parse(input)).toEqual({ city: 'Paris', unit: 'celsius' });
    expect(payloads[6]).toEqual({ stopReason: 'tool_use' });
  });
});

describe('Bedrock requests', () => {
  it('takes the model id and directives from the path, colons in the id allowed unencoded', async () => {
    const response = await postJson(`${mock.url}/model/us.anthropic.claude-x-v1:0/converse`, bedrockBody(), {
      headers: {
        authorization:
          'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/us-east-1/bedrock/aws4_request, SignedHeaders=host, Signature=abc',
        'x-mock': 'chunks=2',
      },
    });
    expect(response.status).toBe(200);
    expect(mock.attempts[0]).toMatchObject({
      dialect: 'bedrock',
      model: 'us.anthropic.claude-x-v1:0',
      name: 'us.anthropic.claude-x-v1:0',
      stream: false,
      directives: { chunks: '2' },
    });
    expect(mock.attempts[0]?.headers.authorization).toMatch(/^AWS4-HMAC-SHA256/);

    const encoded = bedrockPath('bedrock-mock?finish=length&chunks=1', true);
    expect(encoded).toBe('/model/bedrock-mock%3Ffinish%3Dlength%26chunks%3D1/converse-stream');
    const bearer = { headers: { authorization: 'Bearer ABSK-key' } };
    const read = await readBody(await postJson(`${mock.url}${encoded}`, bedrockBody(), bearer));
    const stop = decodeEventStream(read.bytes).find((message) => message.headers[':event-type'] === 'messageStop');
    expect(JSON.parse(stop!.payload)).toEqual({ stopReason: 'max_tokens' });
    expect(mock.attempts[1]).toMatchObject({ name: 'bedrock-mock', stream: true, outcome: 'ok' });
  });

  it('answers a bad body or directive with a 400 ValidationException', async () => {
    const body = await postJson(`${mock.url}${bedrockPath('bedrock-mock')}`, '[1]');
    const directive = await postJson(`${mock.url}${bedrockPath('bedrock-mock?chunks=-1')}`, bedrockBody());
    for (const response of [body, directive]) {
      expect(response.status).toBe(400);
      expect(response.headers.get('x-amzn-errortype')).toBe(
        'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/',
      );
      expect(Object.keys((await response.json()) as object)).toEqual(['message']);
    }
    expect(mock.attempts.map((attempt) => attempt.outcome)).toEqual(['invalid_request', 'bad_directive']);
  });
});
