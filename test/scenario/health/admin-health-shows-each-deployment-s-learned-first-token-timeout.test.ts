import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { startScriptedUpstream, warmUp, type ScriptedUpstream } from '../first-token-helpers.js';
import { deploymentHealth } from '../health-helpers.js';
import { ADMIN_TOKEN } from '../scenario-helpers.js';

let upstream: ScriptedUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  // Two routes name the same primary: one learns its timeout, one has a number.
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  scripted: { provider: openai-compatible, base_url: "${upstream.baseUrl}", api_key: scripted-key }
  mock-openai: { provider: mock, dialect: openai }
routes:
  learned:
    timeouts: { first_token_ms: auto, first_token_min_ms: 400, first_token_max_ms: 8000 }
    targets:
      - { connection: scripted, model: primary }
      - { connection: mock-openai, model: standby }
  fixed:
    timeouts: { first_token_ms: 5000 }
    targets:
      - { connection: scripted, model: primary }
`);
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

it('GET /admin/health shows each deployment\'s first-token samples and the timeout each of its routes gives a typical request', async () => {
  // Cold: nothing measured anywhere, so `auto` gives the cold default (here within the route's maximum).
  expect((await deploymentHealth(gateway.url, 'scripted/primary')).first_token).toEqual({
    samples: 0,
    p99_ms: null,
    typical_input_tokens: null,
    timeout_ms: { learned: 8_000, fixed: 5_000 },
    source: { learned: 'cold', fixed: 'configured' },
  });

  await warmUp(gateway.url, 'learned', 25, 'scripted/primary');
  expect(upstream.seen).toHaveLength(25);

  const warm = (await deploymentHealth(gateway.url, 'scripted/primary')).first_token!;
  expect(warm).toMatchObject({ samples: 25, timeout_ms: { learned: 400, fixed: 5_000 }, source: { learned: 'own', fixed: 'configured' } });
  expect(warm.p99_ms).toBeGreaterThanOrEqual(0);
  expect(warm.p99_ms).toBeLessThan(200);
  expect(warm.typical_input_tokens).toBeGreaterThan(0);
  // The standby never answered: it borrows the route's other target's times, with more headroom.
  expect((await deploymentHealth(gateway.url, 'mock-openai/standby')).first_token).toMatchObject({
    samples: 0,
    p99_ms: null,
    typical_input_tokens: null,
    source: { learned: 'route' },
  });
});
