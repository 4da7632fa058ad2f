import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../support/start-gateway.js';
import { ADMIN_TOKEN, eventually } from '../scenario/scenario-helpers.js';
import { latestDrill, postDrill } from './drill-helpers.js';
import type { DrillRun } from '../../src/drills/drill-run.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
drills: { interval_s: 0 }
${MOCK_CONNECTIONS}
routes:
  slow-to-answer:
    targets:
      - { connection: mock-openai, model: "slow-drilled?first_token_ms=1500" }
`);
});
afterAll(async () => {
  await gateway.close();
});

it('a second POST /admin/drills while one runs is a 409 drill_running naming the running run', async () => {
  expect(await latestDrill(gateway.url)).toBeUndefined();
  const first = postDrill(gateway.url);
  await eventually(() => gateway.mock.attemptsFor('slow-drilled').length === 1, 5_000, 'the first drill to reach the target');
  const running = (await latestDrill(gateway.url))!;
  expect(running).toMatchObject({ finished_at: null, steps: [] });

  const second = await postDrill(gateway.url, 'slow-to-answer');
  expect(second.status).toBe(409);
  const body = (await second.json()) as { error: { code: string; run_id: string; message: string } };
  expect(body.error).toMatchObject({ code: 'drill_running', run_id: running.id });
  expect(body.error.message).toContain(running.id);

  const firstResponse = await first;
  expect(firstResponse.status).toBe(200);
  const run = (await firstResponse.json()) as DrillRun;
  expect(run.id).toBe(running.id);
  expect(run.finished_at).not.toBeNull();
  expect(run.steps).toMatchObject([{ route: 'slow-to-answer', step: 'target', position: 1, result: 'ok' }]);
  // The refused one sent nothing.
  expect(gateway.mock.attemptsFor('slow-drilled')).toHaveLength(1);
  expect(await latestDrill(gateway.url)).toEqual(run);
});
