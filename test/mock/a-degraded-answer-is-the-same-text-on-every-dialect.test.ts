import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { hello, sseContent } from '../scenario/scenario-helpers.js';

/** `chunks=10&degrade=0.3`: words 3, 6 and 9 replaced (the worked example of docs/mock.md). */
const DEGRADED = 'w0 w1 w2 x3 w4 w5 x6 w7 w8 x9';
const CONNECTIONS = ['mock-openai', 'mock-anthropic', 'mock-gemini', 'mock-bedrock', 'mock-responses'];

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`${MOCK_CONNECTIONS}  mock-responses: { provider: mock, dialect: openai-responses }\n`);
});
afterAll(async () => {
  await gateway.close();
});

describe('a degraded mock answer', () => {
  it.each(CONNECTIONS)('is the same text, answered whole or streamed, every time, from %s', async (connection) => {
    const model = `${connection}/gpt-mock?chunks=10&degrade=0.3`;
    for (let repeat = 0; repeat < 2; repeat++) {
      const whole = await postChat(gateway.url, { model, messages: hello });
      expect(whole.status).toBe(200);
      expect(((await whole.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe(DEGRADED);
      const streamed = await postChat(gateway.url, { model, messages: hello, stream: true });
      expect(streamed.status).toBe(200);
      expect(sseContent(await streamed.text())).toBe(DEGRADED);
    }
    expect(gateway.mock.attempts.filter((attempt) => attempt.outcome !== 'ok')).toEqual([]);
  });
});
