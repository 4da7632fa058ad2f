import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { canaryDirectory, canaryRoutes, MOCK_REFERENCE, postCanaries, writePrompts } from '../canary-helpers.js';
import { ADMIN_TOKEN, eventually } from '../scenario-helpers.js';

const directory = canaryDirectory();
let gateway: TestGateway;

beforeAll(async () => {
  const prompts = writePrompts(directory.path, 'slow.jsonl', [{ question: 'take your time', reference: MOCK_REFERENCE }]);
  const quick = writePrompts(directory.path, 'quick.jsonl', [{ question: 'quick', reference: MOCK_REFERENCE }]);
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  slow:
    targets: [{ connection: mock-openai, model: "gpt-slow?headers_delay_ms=2000" }]
  quick:
    targets: [{ connection: mock-openai, model: gpt-quick }]
canaries:
  slow: { interval_s: 0, prompts: "${prompts}", baseline: 1 }
  quick: { interval_s: 0, prompts: "${quick}", baseline: 1 }
`);
});
afterAll(async () => {
  await gateway.close();
  directory.remove();
});

it('while a route’s canary runs, another run of it gets 409 canary_running with the running run’s id, and other routes still run', async () => {
  const first = postCanaries(gateway.url, 'slow');
  let runningId: string | null = null;
  await eventually(async () => (runningId = (await canaryRoutes(gateway.url)).get('slow')!.running) !== null, 3_000, 'the slow canary to be running');

  const second = await postCanaries(gateway.url, 'slow');
  expect(second.status).toBe(409);
  expect(second.body.error).toMatchObject({ code: 'canary_running', route: 'slow', run_id: runningId });
  // All canaries at once includes the running one: refused too, none started.
  expect((await postCanaries(gateway.url)).status).toBe(409);
  const other = await postCanaries(gateway.url, 'quick');
  expect(other.status).toBe(200);

  const finished = await first;
  expect(finished.status).toBe(200);
  expect(finished.body.data![0]).toMatchObject({ id: runningId, route: 'slow', score: 1 });
  expect(gateway.mock.attemptsFor('gpt-slow')).toHaveLength(1);
  expect(gateway.mock.attemptsFor('gpt-quick')).toHaveLength(1);
  expect((await canaryRoutes(gateway.url)).get('slow')!.running).toBeNull();
});
