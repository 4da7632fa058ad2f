import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { configChange } from '../../support/config-change.js';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { canaryDirectory, canaryRoutes, MOCK_REFERENCE, runCanary, writePrompts } from '../canary-helpers.js';
import { ADMIN_TOKEN } from '../scenario-helpers.js';

const directory = canaryDirectory();
let gateway: TestGateway;

const configWith = (prompts: string) => `
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  faq: { targets: [{ connection: mock-openai, model: gpt-faq }] }
canaries:
  faq: { interval_s: 0, prompts: "${prompts}", baseline: 1 }
`;

beforeAll(async () => {
  gateway = await startGateway(configWith(writePrompts(directory.path, 'faq.jsonl', [{ question: 'one', reference: MOCK_REFERENCE }])), { watch: true });
});
afterAll(async () => {
  await gateway.close();
  directory.remove();
});

it('a reload whose canary prompts file has a bad line is rejected, naming the file and line, and the canary keeps its old file', async () => {
  const bad = join(directory.path, 'bad.jsonl');
  writeFileSync(bad, '{"messages": [{"role": "user", "content": "one"}], "reference": "x", "extra": 1}\n');
  const rejected = configChange(gateway.configSource, (change) => change.event === 'rejected');
  gateway.writeConfig(configWith(bad));
  const change = await rejected;
  expect(change.event === 'rejected' && change.issues).toEqual([
    { path: 'canaries.faq.prompts', message: `prompts file ${bad} line 1: unknown key "extra" (a line has only "messages" and "reference")`, line: expect.any(Number) },
  ]);
  expect((await canaryRoutes(gateway.url)).has('faq')).toBe(true);
  expect(await runCanary(gateway.url, 'faq')).toMatchObject({ score: 1, prompts: [{ index: 0, score: 1 }] });
});
