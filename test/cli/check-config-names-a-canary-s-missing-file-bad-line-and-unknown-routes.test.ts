import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../support/cli-process.js';

const directory = mkdtempSync(join(tmpdir(), 'switchyard-canary-config-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const good = '{"messages": [{"role": "user", "content": "Where is my order?"}], "reference": "It ships in two days."}';

it('check-config finds a canary prompts file relative to the config file, and names a missing file, a bad line and unknown routes at their lines', async () => {
  mkdirSync(join(directory, 'canaries'));
  writeFileSync(join(directory, 'canaries', 'support.jsonl'), `${good}\n`);
  writeFileSync(join(directory, 'canaries', 'broken.jsonl'), `${good}\n\n{"messages": [{"role": "user", "content": "hi"}], "reference": 3}\n`);
  const file = join(directory, 'config.yaml');
  writeFileSync(
    file,
    `connections:
  mock: { provider: mock }
routes:
  support: { targets: [{ connection: mock, model: m }] }
  billing: { targets: [{ connection: mock, model: m }] }
canaries:
  support:
    prompts: ./canaries/support.jsonl
    scorer: { grader_route: billing }
  billing:
    prompts: ./canaries/missing.jsonl
    scorer: { grader_route: billing }
  refunds:
    prompts: canaries/broken.jsonl
    scorer: { grader_route: grading }
`,
  );
  // Run from elsewhere: the paths are the config file's, not the working directory's.
  const { code, stderr } = await runCli(['check-config', file], { cwd: tmpdir() });
  expect(code).toBe(1);
  expect(stderr.trimEnd().split('\n')).toEqual([
    `${file}: 5 errors`,
    `  canaries.billing.prompts: cannot read prompts file ${join(directory, 'canaries', 'missing.jsonl')}: ENOENT (line 11)`,
    '  canaries.billing.scorer.grader_route: must be another route than the one it grades (line 12)',
    '  canaries.refunds: unknown route "refunds" (line 14)',
    `  canaries.refunds.prompts: prompts file ${join(directory, 'canaries', 'broken.jsonl')} line 3: "reference" must be a string (line 14)`,
    '  canaries.refunds.scorer.grader_route: unknown route "grading" (line 15)',
  ]);

  writeFileSync(file, `connections:\n  mock: { provider: mock }\nroutes:\n  support: { targets: [{ connection: mock, model: m }] }\ncanaries:\n  support: { prompts: ./canaries/support.jsonl }\n`);
  const fixed = await runCli(['check-config', file], { cwd: tmpdir() });
  expect(fixed.stderr).toBe('');
  expect(fixed.code).toBe(0);
});
