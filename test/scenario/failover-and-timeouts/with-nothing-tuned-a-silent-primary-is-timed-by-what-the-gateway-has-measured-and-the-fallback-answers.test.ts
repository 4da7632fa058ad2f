import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord, hello } from '../scenario-helpers.js';

/**
 * `timeouts.first_token_ms` is `auto` by default: a primary with no first-token times of its own is
 * timed by what the gateway measured nearest to it (here: the connection's other model, warmed by
 * 20 streamed answers), not the 30 s maximum. The config sets nothing but connections and targets.
 */
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
routes:
  warm:
    targets: [{ connection: mock-openai, model: warm }]
  silent:
    targets:
      - { connection: mock-openai, model: "primary?silence" }
      - { connection: mock-anthropic, model: standby }
  late:
    targets:
      - { connection: mock-openai, model: "late?first_token_ms=12000" }
      - { connection: mock-anthropic, model: standby }
  thinking:
    targets:
      - { connection: mock-openai, model: "thinker?first_token_ms=2500" }
      - { connection: mock-anthropic, model: standby }
`);
  for (let index = 0; index < 20; index++) {
    const response = await postChat(gateway.url, { model: 'warm', stream: true, messages: hello });
    expect(response.status).toBe(200);
    await response.text();
  }
}, 60_000);
afterAll(() => gateway.close());
/** The timeout each primary was first cut at, by route. */
const firstCutMs: Record<string, number | null | undefined> = {};
beforeEach(() => gateway.mock.reset());

it.each(['silent', 'late'])('a %s primary times out on the connection\'s measured first tokens, well under the maximum, and the standby answers', async (route) => {
  const response = await postChat(gateway.url, { model: route, stream: true, messages: hello });
  await response.text();
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/standby');
  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  const [primary, standby] = record.attempts;
  expect(primary).toMatchObject({ kind: 'timeout', first_token_source: 'connection' });
  expect(primary!.first_token_timeout_ms).toBeLessThanOrEqual(3_000);
  firstCutMs[route] = primary!.first_token_timeout_ms;
  // The standby is the plan's last option: it waits the maximum rather than turn a slow answer into an error.
  expect(standby).toMatchObject({ kind: 'ok', first_token_source: 'maximum', first_token_timeout_ms: 30_000 });
});

it('a request that asks for reasoning is not timed by answers that did not reason: its slow first token is waited for', async () => {
  const response = await postChat(gateway.url, { model: 'thinking', stream: true, reasoning_effort: 'high', messages: hello });
  await response.text();
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-openai/thinker?first_token_ms=2500');
  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts).toMatchObject([{ kind: 'ok', first_token_source: 'maximum', first_token_timeout_ms: 30_000 }]);
  expect(gateway.mock.attemptsFor('standby')).toHaveLength(0);
});

it('/admin/health shows the learned timeout and where it comes from, per route: once cut at the guess, twice the silence it showed', async () => {
  const response = await fetch(`${gateway.url}/admin/health`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const { data } = (await response.json()) as { data: { connection: string; model: string; first_token: { source: Record<string, string>; timeout_ms: Record<string, number> } }[] };
  const primary = data.find((row) => row.model === 'primary?silence')!;
  const cutAtMs = firstCutMs.silent!;
  expect(primary.first_token.source).toEqual({ silent: 'widened' });
  expect(primary.first_token.timeout_ms.silent).toBe(2 * cutAtMs);
  const warm = data.find((row) => row.model === 'warm')!;
  // The route's only target is its last option.
  expect(warm.first_token.source).toEqual({ warm: 'maximum' });
});
