import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { startScriptedUpstream, warmUp, type ScriptedUpstream } from '../first-token-helpers.js';
import { ADMIN_TOKEN, eventually, fetchRecord, hello } from '../scenario-helpers.js';

let upstream: ScriptedUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  scripted: { provider: openai-compatible, base_url: "${upstream.baseUrl}", api_key: scripted-key }
  mock-openai: { provider: mock, dialect: openai }
routes:
  learned:
    hedge: { after_ms: auto }
    targets:
      - { connection: scripted, model: primary }
      - { connection: mock-openai, model: standby }
`);
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

it('after_ms: auto does not hedge a deployment with fewer than 20 samples, and hedges after its p95 once it has them', async () => {
  // Cold: a slow answer is waited for, with no hedge.
  upstream.delayMs.set('primary', 500);
  const cold = await postChat(gateway.url, { model: 'learned', stream: true, messages: hello });
  await cold.text();
  expect(cold.headers.get('x-switchyard-served-by')).toBe('scripted/primary');
  expect(gateway.mock.attemptsFor('standby')).toHaveLength(0);

  // Warm: 20 fast answers make its p95 a few milliseconds; a slow one is then hedged at once.
  upstream.delayMs.delete('primary');
  await warmUp(gateway.url, 'learned', 20, 'scripted/primary');
  upstream.delayMs.set('primary', 5_000);
  const startedAt = Date.now();
  const hedged = await postChat(gateway.url, { model: 'learned', stream: true, messages: hello });
  await hedged.text();
  expect(hedged.headers.get('x-switchyard-served-by')).toBe('mock-openai/standby');
  expect(Date.now() - startedAt).toBeLessThan(2_000);
  // The scripted primary saw its request's connection close.
  await eventually(() => upstream.closedEarly.length === 1, 3_000, 'the primary connection to close');
  expect(upstream.closedEarly).toEqual(['primary']);
  expect(upstream.seen).toHaveLength(22);

  const record = await fetchRecord(gateway.url, hedged.headers.get('x-request-id')!);
  expect(record.attempts).toMatchObject([
    { n: 1, connection: 'scripted', kind: 'cancelled' },
    { n: 2, connection: 'mock-openai', kind: 'ok', hedge: true },
  ]);
});
