import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { hello } from '../scenario-helpers.js';

let gateway: TestGateway;

const OUTAGE_MS = 6_000;
const RUN_MS = 11_000;
const INTERVAL_MS = 300;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  flaky-primary:
    retries: 0
    # No recovery probes: this is the half-open caller trial's behaviour (the probes have their own test).
    health: { consecutive_failures: 3, eject_base_s: 2, eject_max_s: 8, recovery_probe_s: 0 }
    targets:
      # 503 for 6 s from its first request, then healthy.
      - { connection: mock-openai, model: "outage-primary?status=503&flap_down_s=6" }
      - { connection: mock-anthropic, model: outage-standby }
`);
});
afterAll(() => gateway.close());

it('an outage ejects the primary (a handful of attempts, not one per request); the half-open trial brings it back soon after recovery', { timeout: 30_000 }, async () => {
  const served: { status: number; servedBy: string | null }[] = [];
  const startedAt = Date.now();
  // Steady caller traffic: one request every 300 ms for ~11 s.
  for (let next = startedAt; next < startedAt + RUN_MS; next += INTERVAL_MS) {
    const wait = next - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const response = await postChat(gateway.url, { model: 'flaky-primary', messages: hello });
    await response.text();
    served.push({ status: response.status, servedBy: response.headers.get('x-switchyard-served-by') });
  }

  // Every request was answered, by one target or the other.
  expect(served.length).toBeGreaterThanOrEqual(30);
  expect(served.filter((entry) => entry.status !== 200)).toEqual([]);

  const primary = gateway.mock.attemptsFor('outage-primary');
  expect(primary.length).toBeGreaterThan(0);
  const outageStartMs = primary[0]!.atMs;
  const outageEndMs = outageStartMs + OUTAGE_MS;

  // During the outage: the breaker keeps the primary out; only the tripping failures and the
  // half-open trials reach it (3 + a trial after 2 s + one after 4 more s), never one per request.
  const duringOutage = primary.filter((attempt) => attempt.atMs < outageEndMs);
  const requestsDuringOutage = served.length * (OUTAGE_MS / RUN_MS);
  expect(duringOutage.length).toBeGreaterThanOrEqual(3);
  expect(duringOutage.length).toBeLessThanOrEqual(8);
  expect(duringOutage.length).toBeLessThan(requestsDuringOutage / 2);
  expect(duringOutage.every((attempt) => attempt.outcome === 'status 503')).toBe(true);

  // After recovery: the primary serves again within ~4 s (the next half-open trial succeeds and
  // closes the breaker), and from then on it serves every request.
  const firstSuccess = primary.find((attempt) => attempt.outcome === 'ok');
  expect(firstSuccess, 'the primary never served again after the outage').toBeDefined();
  expect(firstSuccess!.atMs).toBeGreaterThanOrEqual(outageEndMs);
  expect(firstSuccess!.atMs - outageEndMs).toBeLessThanOrEqual(4_500);
  expect(primary.filter((attempt) => attempt.atMs > firstSuccess!.atMs).every((attempt) => attempt.outcome === 'ok')).toBe(true);
  expect(served.at(-1)!.servedBy).toBe('mock-openai/outage-primary?status=503&flap_down_s=6');

  // The standby carried the outage: every request that the primary did not serve.
  const servedByPrimary = served.filter((entry) => entry.servedBy?.startsWith('mock-openai/')).length;
  const servedByStandby = served.filter((entry) => entry.servedBy === 'mock-anthropic/outage-standby').length;
  expect(servedByPrimary + servedByStandby).toBe(served.length);
  expect(gateway.mock.attemptsFor('outage-standby')).toHaveLength(servedByStandby);
  expect(primary.filter((attempt) => attempt.outcome === 'ok')).toHaveLength(servedByPrimary);
});
