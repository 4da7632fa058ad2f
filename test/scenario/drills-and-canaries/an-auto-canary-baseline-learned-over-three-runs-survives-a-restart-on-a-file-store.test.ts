import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { canaryDirectory, canaryRoutes, MOCK_REFERENCE, runCanary, writePrompts } from '../canary-helpers.js';
import { ADMIN_TOKEN } from '../scenario-helpers.js';

const directory = canaryDirectory();
const prompts = writePrompts(directory.path, 'faq.jsonl', [{ question: 'What are your opening hours?', reference: MOCK_REFERENCE }]);
let gateway: TestGateway | undefined;

const configWith = (model: string) => `
store: { kind: sqlite, path: "${join(directory.path, 'store.db')}" }
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  faq:
    targets: [{ connection: mock-openai, model: "${model}" }]
canaries:
  faq: { interval_s: 0, prompts: "${prompts}", baseline: auto, max_drop: 0.2 }
`;

afterAll(async () => {
  await gateway?.close();
  directory.remove();
});

it('an auto baseline is the mean of the first three runs, judged from the fourth, kept in the store file across a restart', async () => {
  gateway = await startGateway(configWith('gpt-faq'));
  for (let run = 1; run <= 3; run++) {
    expect(await runCanary(gateway.url, 'faq')).toMatchObject({ score: 1, baseline: null, threshold: null, dropped: false });
    expect((await canaryRoutes(gateway.url)).get('faq')).toMatchObject({ baseline: run === 3 ? 1 : null, baseline_runs: run });
  }
  await gateway.close();

  // Restarted with the route's model swapped: the learned baseline is the store's, not reset by the change.
  gateway = await startGateway(configWith('gpt-faq?degrade=0.5'));
  const restarted = (await canaryRoutes(gateway.url)).get('faq')!;
  expect(restarted).toMatchObject({ baseline: 1, baseline_runs: 3, running: null });
  expect(restarted.latest).toHaveLength(3);
  const judged = await runCanary(gateway.url, 'faq');
  expect(judged).toMatchObject({ score: 0.5, baseline: 1, threshold: 0.8, dropped: true });
  expect((await canaryRoutes(gateway.url)).get('faq')).toMatchObject({ baseline: 1, baseline_runs: 3 });
  expect((await canaryRoutes(gateway.url)).get('faq')!.latest.map((run) => run.id)[0]).toBe(judged.id);

  // Resetting it: the next three runs learn a new one.
  const reset = await fetch(`${gateway.url}/admin/canaries/faq/baseline`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(reset.status).toBe(200);
  expect(await reset.json()).toEqual({ route: 'faq', reset: true, baseline: null, baseline_runs: 0 });
  expect(await runCanary(gateway.url, 'faq')).toMatchObject({ score: 0.5, baseline: null, dropped: false });
  expect((await canaryRoutes(gateway.url)).get('faq')).toMatchObject({ baseline: null, baseline_runs: 1 });
});
