import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { CLAUDE_CODE_API_KEY, locateClaudeCode, runClaudeCode } from '../../support/claude-code.js';
import { startCli, type CliProcess } from '../../support/cli-process.js';
import { CODEX_API_KEY, locateCodex, runCodex } from '../../support/codex-cli.js';
import { describeRun, type OfflineRun } from '../../support/offline-cli.js';

// The quick start as a new user runs it: `npm start` (examples/demo.yaml) in a fresh directory,
// then each agent with nothing set but its base URL — whatever model names this version sends.
const DEMO_CONFIG = join(process.cwd(), 'examples', 'demo.yaml');
const RUN_TIMEOUT_MS = 60_000;
const inCi = process.env.CI === 'true';
const claudeCode = locateClaudeCode();
const codex = locateCodex();

let directory: string;
let gateway: CliProcess;
let url: string;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'switchyard-agents-quick-start-'));
  gateway = startCli(['serve', '--config', DEMO_CONFIG, '--port', '0'], { cwd: directory, env: {} });
  [, url] = (await gateway.waitFor(/Switchyard listening on (http:\/\/127\.0\.0\.1:\d+)/)) as [string, string];
}, 30_000);
afterAll(async () => {
  await gateway?.stop();
  rmSync(directory, { recursive: true, force: true });
});

/** The gateway's log lines (JSON, not at a terminal) for the requests one agent run made. */
function requestLines(modelRequested: RegExp): { route: string; model_requested: string; status: string; served_by: string }[] {
  return gateway
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"msg":"request"'))
    .map((line) => JSON.parse(line) as { route: string; model_requested: string; status: string; served_by: string })
    .filter((line) => modelRequested.test(line.model_requested));
}

function expectClean(command: string, run: OfflineRun, apiKey: string): void {
  expect(run.exitCode, describeRun(command, run, RUN_TIMEOUT_MS)).toBe(0);
  expect(run.stdout).toContain(mockAnswerText(8));
  expect(run.outsideConnections).toEqual([]);
  expect(gateway.output()).not.toContain(apiKey);
}

describe.skipIf('missing' in claudeCode && !inCi)('Claude Code with only ANTHROPIC_BASE_URL', () => {
  it(
    'answers with its default model, which a claude-* alias routes to the demo agent route',
    async () => {
      if ('missing' in claudeCode) throw new Error(claudeCode.missing);
      const run = await runClaudeCode(claudeCode.binary, { baseUrl: url, prompt: 'Say hello', timeoutMs: RUN_TIMEOUT_MS });
      expectClean('claude -p', run, CLAUDE_CODE_API_KEY);
      const lines = requestLines(/^claude-/);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(line).toMatchObject({ route: 'demo-agent-claude', status: 'ok', served_by: 'mock-anthropic/claude-mock' });
    },
    RUN_TIMEOUT_MS + 10_000,
  );
});

describe.skipIf('missing' in codex && !inCi)('Codex CLI with only openai_base_url', () => {
  it(
    'answers with its default model, which a gpt-* alias routes to the demo agent route',
    async () => {
      if ('missing' in codex) throw new Error(codex.missing);
      const run = await runCodex(codex.launcher, { baseUrl: url, prompt: 'Say hello', timeoutMs: RUN_TIMEOUT_MS });
      expectClean('codex exec', run, CODEX_API_KEY);
      const lines = requestLines(/^(gpt-|codex-)/);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(line).toMatchObject({ route: 'demo-agent-codex', status: 'ok', served_by: 'mock-openai/gpt-mock' });
    },
    RUN_TIMEOUT_MS + 10_000,
  );
});
