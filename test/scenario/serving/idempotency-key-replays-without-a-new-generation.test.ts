import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { eventually } from '../scenario-helpers.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  once: { targets: [{ connection: mock-openai, model: gpt-once }] }
  slow-once: { targets: [{ connection: mock-openai, model: "gpt-slow-once?first_token_ms=500" }] }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

const body = (model: string, stream = false) => ({ model, stream, messages: [{ role: 'user', content: 'only once, please' }] });

describe('Idempotency-Key', () => {
  it('the same key and body twice → one upstream call; the second is the stored answer, marked replayed', async () => {
    const headers = { 'idempotency-key': 'order-42' };
    const first = await postChat(gateway.url, body('once'), headers);
    const firstText = await first.text();
    const second = await postChat(gateway.url, body('once'), headers);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await second.text()).toBe(firstText);
    expect(gateway.mock.attemptsFor('gpt-once')).toHaveLength(1);
    // Every attempt carried a key upstream: derived, not the caller's own.
    expect(gateway.mock.attemptsFor('gpt-once')[0]!.headers['idempotency-key']).toMatch(/^sy-[0-9a-f]{64}$/);
  });

  it('a stream is replayed as the same stream', async () => {
    const headers = { 'idempotency-key': 'stream-7' };
    const first = await (await postChat(gateway.url, body('once', true), headers)).text();
    const replay = await postChat(gateway.url, body('once', true), headers);
    expect(replay.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const replayText = await replay.text();
    expect(replayText).toBe(first);
    expect(replayText.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const replayedContent = replayText
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => (JSON.parse(line.slice(6)) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '')
      .join('');
    expect(replayedContent).toBe(mockAnswerText(8));
    expect(gateway.mock.attemptsFor('gpt-once')).toHaveLength(1);
  });

  it('the same key with another body → 422', async () => {
    const headers = { 'idempotency-key': 'order-43' };
    expect((await postChat(gateway.url, body('once'), headers)).status).toBe(200);
    const other = await postChat(gateway.url, { ...body('once'), temperature: 0.5 }, headers);
    expect(other.status).toBe(422);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe('idempotency_key_mismatch');
    expect(gateway.mock.attemptsFor('gpt-once')).toHaveLength(1);
  });

  it('while the first is still running → 409 with retry-after', async () => {
    const headers = { 'idempotency-key': 'order-44' };
    const running = postChat(gateway.url, body('slow-once'), headers);
    await eventually(() => gateway.mock.attemptsFor('gpt-slow-once').length > 0, 2_000, 'the first attempt to reach the mock');
    const conflict = await postChat(gateway.url, body('slow-once'), headers);
    expect(conflict.status).toBe(409);
    expect(Number(conflict.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await running).status).toBe(200);
    expect(gateway.mock.attemptsFor('gpt-slow-once')).toHaveLength(1);
  });
});
