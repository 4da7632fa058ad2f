import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord, hello } from '../scenario-helpers.js';

let gateway: TestGateway;

// The primary's key ends in a newline (read from a file that had one): no HTTP client will put
// it in a header, so the gateway fails before its request leaves. That is the gateway's failure,
// not the provider's: it must not be retried as a connection failure, nor counted toward ejecting
// a target that never saw the request.
beforeAll(async () => {
  gateway = await startGateway(
    `
admin: { token: ${ADMIN_TOKEN} }
connections:
  primary-conn: { provider: mock, dialect: openai, api_key: "\${env:PRIMARY_KEY}" }
  standby-conn: { provider: mock, dialect: anthropic }
routes:
  chat:
    retries: 2
    health: { consecutive_failures: 2 }
    targets:
      - { connection: primary-conn, model: primary }
      - { connection: standby-conn, model: standby, model_change: true }
  primary-only:
    targets: [{ connection: primary-conn, model: primary }]
`,
    { env: { PRIMARY_KEY: 'primary-key-1234567890\n' } },
  );
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

it('fails over at once, is recorded as internal_error, and leaves the primary healthy', async () => {
  for (let request = 0; request < 4; request++) {
    const response = await postChat(gateway.url, { model: 'chat', messages: hello });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-switchyard-served-by')).toBe('standby-conn/standby');
    const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
    expect(record.attempts.map((attempt) => [attempt.connection, attempt.kind])).toEqual([
      ['primary-conn', 'internal_error'],
      ['standby-conn', 'ok'],
    ]);
  }
  expect(gateway.mock.attemptsFor('primary')).toEqual([]);
  expect(gateway.mock.attemptsFor('standby')).toHaveLength(4);

  const health = await fetch(`${gateway.url}/admin/health`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const primary = ((await health.json()) as { data: { deployment: string; state: string; consecutive_ejections?: number }[] }).data.find(
    (entry) => entry.deployment === 'primary-conn/primary',
  );
  expect(primary?.state).toBe('healthy');
});

it('when no target can be sent, the caller gets a 500 internal_error listing the attempt, without the key', async () => {
  const response = await postChat(gateway.url, { model: 'primary-only', messages: hello });
  expect(response.status).toBe(500);
  const text = await response.text();
  expect(text).not.toContain('primary-key-1234567890');
  const body = JSON.parse(text) as { error: { code: string; attempts: { kind: string }[] } };
  expect(body.error.code).toBe('internal_error');
  expect(body.error.attempts.map((attempt) => attempt.kind)).toEqual(['internal_error']);
  expect(gateway.mock.attemptsFor('primary')).toEqual([]);
});
