import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { startScriptedUpstream, warmUp, type ScriptedUpstream } from '../first-token-helpers.js';
import { deploymentHealth } from '../health-helpers.js';
import { ADMIN_TOKEN, fetchRecord, hello } from '../scenario-helpers.js';

const MIN_MS = 300;
const MAX_MS = 5_000;
const SLOW_MS = 800;
const AUTO = `{ first_token_ms: auto, first_token_min_ms: ${MIN_MS}, first_token_max_ms: ${MAX_MS} }`;

let upstream: ScriptedUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  // One deployment, learned by both routes: alone on one, with a standby after it on the other.
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  scripted: { provider: openai-compatible, base_url: "${upstream.baseUrl}", api_key: scripted-key }
  mock-openai: { provider: mock, dialect: openai }
routes:
  alone:
    timeouts: ${AUTO}
    targets: [{ connection: scripted, model: primary }]
  with-standby:
    timeouts: ${AUTO}
    targets:
      - { connection: scripted, model: primary }
      - { connection: mock-openai, model: standby }
`);
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

// A learned timeout exists to fail over sooner; with nothing left to fail over to it could only
// turn a slow answer into an error, so the last target of a plan waits the maximum.
it('a deployment that slows past its learned timeout still answers where it is the last target, and fails over where a standby follows', async () => {
  await warmUp(gateway.url, 'with-standby', 25, 'scripted/primary');
  expect((await deploymentHealth(gateway.url, 'scripted/primary')).first_token).toMatchObject({
    samples: 25,
    timeout_ms: { alone: MAX_MS, 'with-standby': MIN_MS },
  });
  upstream.delayMs.set('primary', SLOW_MS);

  const withStandby = await postChat(gateway.url, { model: 'with-standby', stream: true, messages: hello });
  await withStandby.text();
  expect(withStandby.status).toBe(200);
  expect(withStandby.headers.get('x-switchyard-served-by')).toBe('mock-openai/standby');
  expect((await fetchRecord(gateway.url, withStandby.headers.get('x-request-id')!)).attempts).toMatchObject([
    { connection: 'scripted', kind: 'timeout', first_token_timeout_ms: MIN_MS },
    { connection: 'mock-openai', kind: 'ok', first_token_timeout_ms: MAX_MS },
  ]);

  const startedAt = Date.now();
  const alone = await postChat(gateway.url, { model: 'alone', stream: true, messages: hello });
  await alone.text();
  expect(alone.status).toBe(200);
  expect(alone.headers.get('x-switchyard-served-by')).toBe('scripted/primary');
  expect(Date.now() - startedAt).toBeGreaterThanOrEqual(SLOW_MS);
  expect((await fetchRecord(gateway.url, alone.headers.get('x-request-id')!)).attempts).toMatchObject([
    { connection: 'scripted', kind: 'ok', first_token_timeout_ms: MAX_MS },
  ]);

  // The slow answer is a sample like any other, and so is the cut before it (a silence of at least
  // its timeout): the deployment's p99 is now that answer's time.
  const learned = (await deploymentHealth(gateway.url, 'scripted/primary')).first_token!;
  expect(learned.samples).toBe(27);
  expect(learned.timeout_ms['with-standby']).toBeGreaterThanOrEqual(2 * SLOW_MS);

  expect(upstream.seen.filter((request) => request.model === 'primary')).toHaveLength(27);
  expect(gateway.mock.attemptsFor('standby')).toHaveLength(1);
});
