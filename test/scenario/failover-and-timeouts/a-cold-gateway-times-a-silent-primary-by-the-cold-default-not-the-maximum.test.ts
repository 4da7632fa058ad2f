import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord, hello } from '../scenario-helpers.js';

/**
 * A gateway that has measured nothing yet times a streamed request that does not ask for
 * reasoning by the cold default (8 s for an ordinary prompt), so a silent primary costs the first
 * caller seconds, not the 30 s maximum. The config sets nothing but connections and targets.
 */
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
routes:
  silent:
    targets:
      - { connection: mock-openai, model: "primary?silence" }
      - { connection: mock-anthropic, model: standby }
`);
});
afterAll(() => gateway.close());

it('the first caller of a cold gateway is answered by the standby after the cold default', async () => {
  const response = await postChat(gateway.url, { model: 'silent', stream: true, messages: hello });
  await response.text();
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/standby');
  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts[0]).toMatchObject({ kind: 'timeout', error_type: 'first_token', first_token_source: 'cold', first_token_timeout_ms: 8_000 });
}, 30_000);
