import { afterAll, expect, it } from 'vitest';
import { postgresForThisFile } from '../../support/postgres-server.js';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { canaryDirectory, canaryRoutes, MOCK_REFERENCE, runCanary, writePrompts } from '../canary-helpers.js';
import { queryPostgres } from '../postgres-helpers.js';
import { ADMIN_TOKEN } from '../scenario-helpers.js';

const { available, server } = postgresForThisFile();
const directory = canaryDirectory();
const prompts = writePrompts(directory.path, 'faq.jsonl', [
  { question: 'What are your opening hours?', reference: MOCK_REFERENCE },
  { question: 'Where is my parcel?', reference: MOCK_REFERENCE },
]);
let gateway: TestGateway | undefined;

const configWith = (url: string, model: string) => `
store: { kind: postgres, url: "${url}", spill_dir: "${directory.path}" }
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

it.skipIf(!available)('an auto baseline learned over three runs is kept in PostgreSQL and judges the first run after a restart', async () => {
  const url = await server().createDatabase('canary');
  gateway = await startGateway(configWith(url, 'gpt-faq'));
  const learning = [];
  for (let run = 1; run <= 3; run++) learning.push(await runCanary(gateway.url, 'faq'));
  expect(learning.map((run) => [run.score, run.baseline, run.dropped])).toEqual([
    [1, null, false],
    [1, null, false],
    [1, null, false],
  ]);
  await gateway.close();

  gateway = await startGateway(configWith(url, 'gpt-faq?degrade=0.5'));
  expect((await canaryRoutes(gateway.url)).get('faq')).toMatchObject({ baseline: 1, baseline_runs: 3 });
  const judged = await runCanary(gateway.url, 'faq');
  expect(judged).toMatchObject({ score: 0.5, baseline: 1, threshold: 0.8, dropped: true });

  const scores = await queryPostgres<{ run_id: string; score: number }>(url, 'SELECT run_id, score FROM canary_baseline_scores ORDER BY started_ms');
  expect(scores).toEqual(learning.map((run) => ({ run_id: run.id, score: 1 })));
  const runs = await queryPostgres<{ id: string }>(url, "SELECT id FROM canary_runs WHERE route = 'faq' ORDER BY started_ms");
  expect(runs.map((row) => row.id)).toEqual([...learning, judged].map((run) => run.id));
});
