import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hello, sseContent } from '../scenario-helpers.js';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  weaker: { targets: [{ connection: mock-openai, model: "gpt-weaker?chunks=10&degrade=0.3" }] }
  weaker-claude: { targets: [{ connection: mock-anthropic, model: "claude-weaker?chunks=10&degrade=0.3" }] }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

const degraded = 'w0 w1 w2 x3 w4 w5 x6 w7 w8 x9';

async function answerOf(model: string, stream: boolean): Promise<string> {
  const response = await postChat(gateway.url, { model, stream, messages: hello });
  expect(response.status).toBe(200);
  if (stream) return sseContent(await response.text());
  return ((await response.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
}

describe('degrade=SHARE makes the mock a weaker model', () => {
  it('3 of 10 words are replaced, the same ones on every request, streamed or not, in either upstream format', async () => {
    expect(await answerOf('weaker', false)).toBe(degraded);
    expect(await answerOf('weaker', false)).toBe(degraded);
    expect(await answerOf('weaker', true)).toBe(degraded);
    expect(await answerOf('weaker-claude', true)).toBe(degraded);
    expect(await answerOf('weaker-claude', false)).toBe(degraded);
    const attempts = [...gateway.mock.attemptsFor('gpt-weaker'), ...gateway.mock.attemptsFor('claude-weaker')];
    expect(attempts.map((attempt) => [attempt.directives.degrade, attempt.outcome])).toEqual(Array(5).fill(['0.3', 'ok']));
  });
});
