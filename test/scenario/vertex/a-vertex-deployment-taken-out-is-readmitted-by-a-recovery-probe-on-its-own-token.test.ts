import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat } from '../../support/start-gateway.js';
import { deploymentHealth } from '../health-helpers.js';
import { eventually, hello } from '../scenario-helpers.js';
import { startVertexGateway, type VertexGateway } from './vertex-gateway.js';

/**
 * Recovery probes reach Vertex as callers do, with the connection's access token: a Gemini model
 * not found once (a model not yet enabled in the project) is structural, then a probe readmits it
 * (docs/health.md).
 */
const MODEL = 'gemini-2.5-flash?status=404&times=1';
let vx: VertexGateway;

beforeAll(async () => {
  vx = await startVertexGateway(`
health: { probe_interval_s: 1 }
connections:
  standby: { provider: mock, dialect: openai }
routes:
  gemini:
    targets:
      - { connection: vertex, model: "${MODEL}" }
      - { connection: standby, model: standby-model }
`);
});
afterAll(() => vx.close());

it('a Vertex deployment out for not_found is probed on its own token and readmitted', async () => {
  const response = await postChat(vx.gateway.url, { model: 'gemini', messages: hello });
  await response.text();
  expect(response.headers.get('x-switchyard-served-by')).toBe('standby/standby-model');
  expect(await deploymentHealth(vx.gateway.url, `vertex/${MODEL}`)).toMatchObject({ state: 'structural', structural_cause: 'not_found' });

  await eventually(async () => (await deploymentHealth(vx.gateway.url, `vertex/${MODEL}`)).state === 'healthy', 10_000, 'the Vertex deployment readmitted');
  const [fault, probe] = vx.vertex.attempts;
  expect(fault!.outcome).not.toBe('ok');
  expect(probe).toMatchObject({ outcome: 'ok', path: expect.stringMatching(/\/publishers\/google\/models\/.+:generateContent$/) });
  expect(probe!.headers.authorization).toBe(fault!.headers.authorization);
});
