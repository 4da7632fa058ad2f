import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { deploymentHealth } from '../health-helpers.js';
import { ADMIN_TOKEN, eventually, hello, listRecords } from '../scenario-helpers.js';

// The primary answers 503 to its first three requests (enough to eject it), then is healthy again.
const PRIMARY = 'primary?status=503&times=3';
const DEPLOYMENT = `main/${PRIMARY}`;

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  main: { provider: mock, dialect: openai }
  spare: { provider: mock, dialect: anthropic }
routes:
  r:
    targets:
      - { connection: main, model: "${PRIMARY}" }
      - { connection: spare, model: fallback }
`);
});
afterAll(() => gateway.close());

async function ask(): Promise<string | null> {
  const response = await postChat(gateway.url, { model: 'r', messages: hello });
  await response.text();
  expect(response.status).toBe(200);
  return response.headers.get('x-switchyard-served-by');
}

it("an ejected primary that heals is readmitted by the gateway's own probe, with no caller trying it, and serves the next caller", { timeout: 60_000 }, async () => {
  // Callers eject the primary, each answered by the fallback.
  for (let count = 0; count < 5 && (await deploymentHealth(gateway.url, DEPLOYMENT)).state !== 'ejected'; count++) {
    expect(await ask()).toBe('spare/fallback');
  }
  const ejected = await deploymentHealth(gateway.url, DEPLOYMENT);
  expect(ejected.state).toBe('ejected');
  // The probe is due before the ejection ends.
  expect(Date.parse(ejected.next_probe_at!)).toBeGreaterThan(Date.parse(ejected.since!));
  expect(Date.parse(ejected.next_probe_at!)).toBeLessThan(Date.parse(ejected.ejected_until!));
  expect(gateway.mock.attemptsFor('primary').map((attempt) => attempt.outcome)).toEqual(['status 503', 'status 503', 'status 503']);

  // No caller asks now: only the gateway's probe can bring it back (the ejection itself lasts 10 s).
  await eventually(async () => (await deploymentHealth(gateway.url, DEPLOYMENT)).state === 'healthy', 30_000, 'the primary readmitted');
  const readmitted = await deploymentHealth(gateway.url, DEPLOYMENT);
  expect(readmitted.reason).toBe('readmitted by a successful recovery probe');
  expect(readmitted).toMatchObject({ consecutive_ejections: 0, next_probe_at: null });

  const probes = await listRecords(gateway.url, 'origin=probe');
  expect(probes).toHaveLength(1);
  expect(probes[0]).toMatchObject({ origin: 'probe', status: 'ok', served: { connection: 'main' } });
  const [probe] = gateway.mock.attemptsFor('primary').slice(3);
  expect(probe).toMatchObject({ outcome: 'ok', body: { max_completion_tokens: 1, messages: [{ role: 'user', content: 'ping' }] } });
  expect(gateway.mock.attemptsFor('primary')).toHaveLength(4);

  expect(await ask()).toBe(DEPLOYMENT);
  expect(gateway.mock.attemptsFor('primary').at(-1)).toMatchObject({ outcome: 'ok', body: { messages: [{ role: 'user', content: 'hi' }] } });
});
