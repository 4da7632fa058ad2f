import { expect, it } from 'vitest';
import { eventually } from '../scenario/scenario-helpers.js';
import { chat, createFleetKey, fleetForThisFile, healthOf, mockConnectionYaml } from './fleet-helpers.js';

// 503 to its first three requests (enough to eject it), then healthy again.
const PRIMARY = 'gpt-primary?status=503&times=3';
const DEPLOYMENT = `mock/${PRIMARY}`;

const fleet = fleetForThisFile({
  yaml: (mockUrl) => `${mockConnectionYaml(mockUrl)}
routes:
  r:
    targets:
      - { connection: mock, model: "${PRIMARY}" }
      - { connection: mock, model: gpt-standby }`,
});

it.skipIf(!fleet.available)('a primary ejected on one replica that heals is readmitted on both by one recovery probe, and the other replica serves from it', async () => {
  const [first, second] = fleet.fleet().replicas;
  const { key } = await createFleetKey(first!.url, { name: 'recovery' });
  for (let count = 0; count < 5 && (await healthOf(first!.url, DEPLOYMENT)).state !== 'ejected'; count++) {
    const answer = await chat(first!.url, key);
    expect(answer.headers.get('x-switchyard-served-by')).toBe('mock/gpt-standby');
  }
  expect(fleet.mock().attemptsFor('gpt-primary').map((attempt) => attempt.outcome)).toEqual(['status 503', 'status 503', 'status 503']);
  await eventually(async () => (await healthOf(second!.url, DEPLOYMENT)).state === 'ejected', 5_000, 'the other replica seeing the ejection');

  // No caller asks: the replicas' monitors, both due at the same moment, send one probe between them.
  for (const replica of [first!, second!]) {
    await eventually(async () => (await healthOf(replica.url, DEPLOYMENT)).state === 'healthy', 30_000, `${replica.url} readmitting the primary`);
    expect(await healthOf(replica.url, DEPLOYMENT)).toMatchObject({ reason: 'readmitted by a successful recovery probe', consecutive_ejections: 0 });
  }
  const [probe, ...more] = fleet.mock().attemptsFor('gpt-primary').slice(3);
  expect(probe).toMatchObject({ outcome: 'ok', body: { max_completion_tokens: 1 } });
  expect(more).toEqual([]);

  const answer = await chat(second!.url, key);
  expect(answer.headers.get('x-switchyard-served-by')).toBe(DEPLOYMENT);
}, 90_000);
