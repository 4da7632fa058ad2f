import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../support/cli-process.js';

const directory = mkdtempSync(join(tmpdir(), 'switchyard-model-change-'));

afterAll(() => rmSync(directory, { recursive: true, force: true }));

it('check-config lists every target with its model_change, inferred from the catalog or as written', async () => {
  const file = join(directory, 'failover.yaml');
  writeFileSync(
    file,
    `auth: { mode: none }
connections:
  openai: { provider: openai, api_key: sk-test }
  anthropic: { provider: anthropic, api_key: sk-ant-test }
  bedrock: { provider: bedrock, region: us-east-1, api_key: bedrock-test }
routes:
  gpt:
    targets:
      - { connection: openai, model: gpt-4.1 }
      - { connection: anthropic, model: claude-sonnet-4-5 }
  claude:
    targets:
      - { connection: anthropic, model: claude-sonnet-4-5-20250929 }
      - { connection: bedrock, model: us.anthropic.claude-sonnet-4-5-20250929-v1:0 }
      - { connection: openai, model: gpt-4.1, model_change: false }
`,
  );
  const { code, stdout, stderr } = await runCli(['check-config', file]);

  expect(stderr).toBe('');
  expect(code).toBe(0);
  expect(stdout).toBe(
    `${file}: ok (3 connections, 2 routes)
  routes.gpt.targets[0]: openai/gpt-4.1, model_change: false (inferred)
  routes.gpt.targets[1]: anthropic/claude-sonnet-4-5, model_change: true (inferred)
  routes.claude.targets[0]: anthropic/claude-sonnet-4-5-20250929, model_change: false (inferred)
  routes.claude.targets[1]: bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0, model_change: false (inferred)
  routes.claude.targets[2]: openai/gpt-4.1, model_change: false (written)
`,
  );
});
