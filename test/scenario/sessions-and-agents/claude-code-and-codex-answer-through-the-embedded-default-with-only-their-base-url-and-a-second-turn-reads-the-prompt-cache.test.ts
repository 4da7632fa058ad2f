import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { RequestRecord } from '../../../src/core/request-record.js';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { CLAUDE_CODE_API_KEY, locateClaudeCode, runClaudeCode } from '../../support/claude-code.js';
import { startCli, type CliProcess } from '../../support/cli-process.js';
import { CODEX_API_KEY, locateCodex, runCodex } from '../../support/codex-cli.js';
import { describeRun, type OfflineRun } from '../../support/offline-cli.js';
import { eventually } from '../scenario-helpers.js';

// The quick start as a new user runs it: `npm start` (examples/demo.yaml) in a fresh directory,
// then each agent with nothing set but its base URL — whatever model names this version sends —
// for two turns of one session, the second of which the mock reads mostly from its prompt cache.
const DEMO_CONFIG = join(process.cwd(), 'examples', 'demo.yaml');
const RUN_TIMEOUT_MS = 60_000;
const inCi = process.env.CI === 'true';
const claudeCode = locateClaudeCode();
const codex = locateCodex();

let directory: string;
let gateway: CliProcess;
let url: string;
let home: string;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'switchyard-agents-quick-start-'));
  home = mkdtempSync(join(tmpdir(), 'switchyard-agents-home-'));
  gateway = startCli(['serve', '--config', DEMO_CONFIG, '--port', '0'], { cwd: directory, env: {} });
  [, url] = (await gateway.waitFor(/Switchyard listening on (http:\/\/127\.0\.0\.1:\d+)/)) as [string, string];
}, 30_000);
afterAll(async () => {
  await gateway?.stop();
  rmSync(directory, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

/**
 * The gateway's log lines (JSON, not at a terminal) for the requests one agent run made, once
 * there is one: the log is written after the answer, and may reach the pipe after the agent exits.
 */
async function loggedRequests(modelRequested: RegExp): Promise<ReturnType<typeof requestLines>> {
  await eventually(() => requestLines(modelRequested).length > 0, 10_000, `a request line for ${modelRequested}`);
  return requestLines(modelRequested);
}

/** The gateway's log lines (JSON, not at a terminal) for the requests so far. */
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

/**
 * The route's records, oldest first, read with the admin token the quick start wrote, once the
 * store holds one for each request the log has named, and at least `atLeast` (records are written in batches).
 */
async function recordsOf(route: string, atLeast = 1): Promise<RequestRecord[]> {
  const token = readFileSync(join(directory, '.switchyard', 'admin-token'), 'utf8').trim();
  const logged = Math.max(atLeast, requestLines(/./).filter((line) => line.route === route).length);
  let records: RequestRecord[] = [];
  await eventually(
    async () => {
      const response = await fetch(`${url}/admin/requests?route=${route}&limit=100`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) });
      records = ((await response.json()) as { data: RequestRecord[] }).data;
      return records.length >= logged;
    },
    10_000,
    `the ${logged} records of route ${route}`,
  );
  return records.reverse();
}

/** What a record's tokens would cost at the demo's prices with no cache (every prompt token at the input price). */
function uncachedCostUsd(route: string, record: RequestRecord): number {
  const config = parse(readFileSync(DEMO_CONFIG, 'utf8')) as { routes: Record<string, { targets: { price: { input_per_mtok: number; output_per_mtok: number } }[] }> };
  const { price } = config.routes[route]!.targets[0]!;
  return (record.usage!.input_tokens * price.input_per_mtok + record.usage!.output_tokens * price.output_per_mtok) / 1e6;
}

/** The second turn's records read most of their prompt from the cache the first turn filled, and cost less for it. */
function expectCachedSecondTurn(route: string, firstTurn: RequestRecord[], secondTurn: RequestRecord[]): void {
  expect(secondTurn.length).toBeGreaterThan(0);
  const [first] = firstTurn;
  for (const record of secondTurn) {
    expect(record.session).toBe(first!.session);
    expect(record.usage!.cache_read_tokens).toBeGreaterThan(first!.usage!.input_tokens / 2);
    expect(record.cost_usd!).toBeLessThan(uncachedCostUsd(route, record));
    expect(record.cost_usd!).toBeLessThan(first!.cost_usd!);
  }
}

describe.skipIf('missing' in claudeCode && !inCi)('Claude Code with only ANTHROPIC_BASE_URL', () => {
  it(
    'answers with its default model, which a claude-* alias routes to the demo agent route, and its second turn reads the prompt cache',
    async () => {
      if ('missing' in claudeCode) throw new Error(claudeCode.missing);
      const session = randomUUID();
      const run = await runClaudeCode(claudeCode.binary, { baseUrl: url, prompt: 'Say hello', args: ['--session-id', session], home, timeoutMs: RUN_TIMEOUT_MS });
      expectClean('claude -p', run, CLAUDE_CODE_API_KEY);
      const lines = await loggedRequests(/^claude-/);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(line).toMatchObject({ route: 'demo-agent-claude', status: 'ok', served_by: 'mock-anthropic/claude-mock' });

      // Anthropic reports the first turn's marked prompt as written to the cache, at the write price.
      const firstTurn = await recordsOf('demo-agent-claude');
      expect(firstTurn.length).toBeGreaterThan(0);
      expect(firstTurn[0]!.usage!.cache_write_tokens).toBeGreaterThan(0);

      const second = await runClaudeCode(claudeCode.binary, { baseUrl: url, prompt: 'Say more', args: ['--resume', session], home, timeoutMs: RUN_TIMEOUT_MS });
      expectClean('claude -p --resume', second, CLAUDE_CODE_API_KEY);
      expectCachedSecondTurn('demo-agent-claude', firstTurn, (await recordsOf('demo-agent-claude', firstTurn.length + 1)).slice(firstTurn.length));
    },
    2 * RUN_TIMEOUT_MS + 10_000,
  );
});

describe.skipIf('missing' in codex && !inCi)('Codex CLI with only openai_base_url', () => {
  it(
    'answers with its default model, which a gpt-* alias routes to the demo agent route, and its second turn reads the prompt cache',
    async () => {
      if ('missing' in codex) throw new Error(codex.missing);
      const run = await runCodex(codex.launcher, { baseUrl: url, prompt: 'Say hello', home, timeoutMs: RUN_TIMEOUT_MS });
      expectClean('codex exec', run, CODEX_API_KEY);
      const lines = await loggedRequests(/^(gpt-|codex-)/);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(line).toMatchObject({ route: 'demo-agent-codex', status: 'ok', served_by: 'mock-openai/gpt-mock' });

      // OpenAI reports no cache writes: the first turn is plain prompt tokens.
      const firstTurn = await recordsOf('demo-agent-codex');
      expect(firstTurn.length).toBeGreaterThan(0);
      expect(firstTurn[0]!.usage!.cache_read_tokens ?? 0).toBe(0);

      const second = await runCodex(codex.launcher, { baseUrl: url, prompt: 'Say more', home, resumeLast: true, timeoutMs: RUN_TIMEOUT_MS });
      expectClean('codex exec resume --last', second, CODEX_API_KEY);
      expectCachedSecondTurn('demo-agent-codex', firstTurn, (await recordsOf('demo-agent-codex', firstTurn.length + 1)).slice(firstTurn.length));
    },
    2 * RUN_TIMEOUT_MS + 10_000,
  );
});
