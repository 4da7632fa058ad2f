import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord, hello, sseContent } from '../scenario-helpers.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  buffered:
    commit: complete
    hedge: { after_ms: 200 }
    targets:
      - { connection: mock-openai, model: "stalling?stall_after=1" }
      - { connection: mock-openai, model: standby }
`);
});
afterAll(() => gateway.close());

// Under commit: complete the commit point is the whole answer: a primary that sent its first
// token and then stalled has not committed, so it is hedged like a silent one.
it('a commit: complete route hedges a stream that started but has not finished after after_ms', async () => {
  const startedAt = Date.now();
  const response = await postChat(gateway.url, { model: 'buffered', stream: true, messages: hello });
  const body = await response.text();
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-openai/standby');
  expect(sseContent(body)).not.toBe('');
  expect(Date.now() - startedAt).toBeLessThan(5_000);
  expect(gateway.mock.attemptsFor('stalling')).toHaveLength(1);

  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts).toMatchObject([
    { n: 1, kind: 'cancelled', committed: false, message: 'another attempt of this request answered first' },
    { n: 2, kind: 'ok', committed: true, hedge: true },
  ]);
  // The stalled attempt generated a chunk before it was cut: billed for it, estimated.
  expect(record.attempts[0]!.usage).toMatchObject({ estimated: true });
  expect(record.attempts[0]!.usage!.output_tokens).toBeGreaterThan(0);
});
