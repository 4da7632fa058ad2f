import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { canaryDirectory, MOCK_REFERENCE, postCanaries, runCanary, writePrompts } from '../canary-helpers.js';
import { ADMIN_TOKEN } from '../scenario-helpers.js';

const directory = canaryDirectory();
let gateway: TestGateway;
let prompts: string;

beforeAll(async () => {
  prompts = writePrompts(directory.path, 'faq.jsonl', [{ question: 'one', reference: MOCK_REFERENCE }]);
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  faq: { targets: [{ connection: mock-openai, model: gpt-faq }] }
canaries:
  faq: { interval_s: 0, prompts: "${prompts}", baseline: 1 }
`);
});
afterAll(async () => {
  await gateway.close();
  directory.remove();
});

it('the prompts file is read at each run: an edit counts from the next run with no reload, and a file broken since the last load fails the run naming its line', async () => {
  expect((await runCanary(gateway.url, 'faq')).prompts).toHaveLength(1);

  writePrompts(directory.path, 'faq.jsonl', [
    { question: 'one', reference: MOCK_REFERENCE },
    { question: 'two', reference: 'something else entirely' },
  ]);
  const edited = await runCanary(gateway.url, 'faq');
  expect(edited.prompts.map((prompt) => prompt.score)).toEqual([1, 0]);
  expect(edited.score).toBe(0.5);

  writeFileSync(prompts, '{"messages": [{"role": "user", "content": "one"}], "reference": "x"}\n{"messages": \n');
  const broken = await postCanaries(gateway.url, 'faq');
  expect(broken.status).toBe(500);
  expect(broken.body.error).toMatchObject({ code: 'canary_prompts_invalid', message: expect.stringMatching(new RegExp(`^prompts file ${prompts} line 2: not JSON`)) });
  // Nothing was sent for the broken run.
  expect(gateway.mock.attemptsFor('gpt-faq')).toHaveLength(3);
});
