import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { deploymentHealth } from '../scenario/health-helpers.js';
import { ADMIN_TOKEN, eventually } from '../scenario/scenario-helpers.js';
import { drill } from './drill-helpers.js';

let gateway: TestGateway;

// Over quota once (a structural fault), then served again: only a probe can bring it back.
const PRIMARY = 'text-embedding-3-small?error=insufficient_quota&times=1';

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
drills: { interval_s: 0 }
health: { probe_interval_s: 1 }
connections:
  vectors-a: { provider: mock, dialect: openai }
  vectors-b: { provider: mock, dialect: openai }
routes:
  vectors:
    targets:
      - { connection: vectors-a, model: "${PRIMARY}" }
      - { connection: vectors-b, model: text-embedding-3-large }
`);
});
afterAll(async () => {
  await gateway.close();
});

it('a route of embedding models is drilled, and its structural deployment probed, with one word to embed — a chat would be refused by a real provider', async () => {
  const run = await drill(gateway.url, 'vectors');
  expect(run.steps.map(({ step, position, result }) => `${step} ${position} ${result}`)).toEqual(['target 1 quota_exhausted', 'target 2 ok', 'chain 2 ok']);
  const sent = [...gateway.mock.attemptsFor('text-embedding-3-small'), ...gateway.mock.attemptsFor('text-embedding-3-large')];
  expect(sent).toHaveLength(3);
  for (const attempt of sent) {
    expect(attempt.path).toBe('/v1/embeddings');
    expect(attempt.body).toMatchObject({ input: ['ping'] });
  }

  // The drill's finding made the primary structural; the probe that brings it back embeds too.
  expect((await deploymentHealth(gateway.url, `vectors-a/${PRIMARY}`)).state).toBe('structural');
  // Re-admitted (still cooling from the 429 that told of the quota, which is a separate matter).
  await eventually(async () => (await deploymentHealth(gateway.url, `vectors-a/${PRIMARY}`)).structural_cause === null, 5_000, 'the primary re-admitted by its probe');
  const probe = gateway.mock.attemptsFor('text-embedding-3-small').at(-1)!;
  expect(probe.path).toBe('/v1/embeddings');
  expect(probe.outcome).toBe('ok');
});
