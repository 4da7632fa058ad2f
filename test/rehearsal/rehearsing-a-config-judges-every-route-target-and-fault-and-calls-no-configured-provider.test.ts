import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { runCli } from '../support/cli-process.js';

const directory = mkdtempSync(join(tmpdir(), 'switchyard-rehearse-'));
const configFile = join(directory, 'switchyard.yaml');
/** Stands where every configured provider is: a rehearsal must never reach it. */
let trap: Server;
let trapConnections = 0;
const REHEARSAL_TIMEOUT_MS = 180_000;

beforeAll(async () => {
  trap = createServer((_request, response) => response.end());
  trap.on('connection', () => trapConnections++);
  await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
  const trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
  writeFileSync(
    configFile,
    `
connections:
  openai: { provider: openai, api_key: sk-rehearse-not-a-key, base_url: "${trapUrl}/v1" }
  anthropic: { provider: anthropic, api_key: sk-ant-rehearse-not-a-key, base_url: "${trapUrl}" }
routes:
  # A fallback on another connection: what a rehearsal should find sound.
  sturdy:
    targets:
      - { connection: openai, model: gpt-4.1-mini }
      - { connection: anthropic, model: claude-sonnet-4-5 }
  # One target and no retry.
  alone:
    retries: 0
    targets: [{ connection: openai, model: gpt-4.1-mini }]
  # A fallback on the primary's own connection.
  shared:
    targets:
      - { connection: openai, model: gpt-4.1-mini }
      - { connection: openai, model: gpt-4.1 }
`,
  );
});
afterAll(async () => {
  await new Promise((resolve) => trap.close(resolve));
  rmSync(directory, { recursive: true, force: true });
});

const verdictSchema = z.strictObject({ goal: z.string(), pass: z.boolean(), detail: z.string(), advice: z.string().optional() });
const callSchema = z.strictObject({
  sent_at_ms: z.number(),
  status: z.number(),
  error_type: z.string().nullable(),
  served_by: z.string().nullable(),
  first_byte_ms: z.number().nullable(),
  end_ms: z.number(),
  answered: z.boolean(),
  attempts: z.array(z.strictObject({ target: z.string(), kind: z.string(), http_status: z.number().nullable(), error_type: z.string().nullable() })).min(1),
  cost_usd: z.number().nullable(),
});
const rehearsalSchema = z.strictObject({
  max_wait_s: z.number(),
  duration_ms: z.number(),
  scenarios_total: z.number(),
  failed: z.number(),
  scenarios: z.array(
    z.strictObject({
      route: z.string(),
      position: z.number(),
      target: z.string(),
      fault: z.string(),
      request: z.literal('chat'),
      pass: z.boolean(),
      verdicts: z.array(verdictSchema),
      upstream_calls: z.number(),
      calls: z.array(callSchema).min(1),
    }),
  ),
});
type Judged = z.infer<typeof rehearsalSchema>['scenarios'][number];

const FAULTS = 'server_error,credential,cut,quota,model_gone';

function failing(scenario: Judged): string[] {
  return scenario.verdicts.filter((verdict) => !verdict.pass).map((verdict) => verdict.goal);
}

it(
  'judges every route × position × fault, fails the weak routes with the change to make, and exits 1 — no connection reaching a configured provider',
  async () => {
    const run = await runCli(['rehearse', '--config', configFile, '--fault', FAULTS, '--json'], { timeoutMs: REHEARSAL_TIMEOUT_MS });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain('rehearsing: 25 of 25 scenarios');
    const rehearsal = rehearsalSchema.parse(JSON.parse(run.stdout));
    expect(rehearsal.scenarios_total).toBe(25);
    const cell = (route: string, position: number, fault: string) => rehearsal.scenarios.find((scenario) => scenario.route === route && scenario.position === position && scenario.fault === fault)!;

    // The sturdy route answers every fault but a cut after the commit point, which is told honestly.
    for (const fault of ['server_error', 'credential', 'quota', 'model_gone']) {
      expect(cell('sturdy', 0, fault), fault).toMatchObject({ pass: true, calls: [{ answered: true, served_by: 'anthropic/claude-sonnet-4-5' }] });
      expect(cell('sturdy', 1, fault), fault).toMatchObject({ pass: true, calls: [{ answered: true, served_by: 'openai/gpt-4.1-mini' }] });
    }
    const cut = cell('sturdy', 0, 'cut');
    expect(failing(cut)).toEqual(['answered']);
    expect(cut.calls[0]).toMatchObject({ status: 200, error_type: 'stream_interrupted', answered: false });
    expect(cut.verdicts.find((verdict) => verdict.goal === 'answered')!.advice).toContain('commit: complete');
    expect(cut.verdicts.find((verdict) => verdict.goal === 'honest')!.pass).toBe(true);
    // Told to retry or not, a caller of it is served: the quota goal is for a route with nothing off the spent account.
    expect(cell('sturdy', 0, 'quota').verdicts.map((verdict) => verdict.goal)).not.toContain('no_retry_on_quota');
    // The route's default policy, as the attempts show it: one retry of the primary, then the fallback.
    expect(cell('sturdy', 0, 'server_error').calls[0]!.attempts.map(({ target, kind, http_status }) => [target, kind, http_status])).toEqual([
      ['openai/gpt-4.1-mini', 'server_error', 500],
      ['openai/gpt-4.1-mini', 'server_error', 500],
      ['anthropic/claude-sonnet-4-5', 'ok', 200],
    ]);

    // One target, no retry: nothing answers for it.
    for (const fault of FAULTS.split(',')) {
      expect(failing(cell('alone', 0, fault)), fault).toEqual(['answered']);
      expect(cell('alone', 0, fault).verdicts[0]!.advice).toBe('add a fallback target, on another connection');
    }

    // A fallback on the same connection covers a model's fault, not the account's.
    for (const position of [0, 1]) {
      expect(cell('shared', position, 'server_error').pass).toBe(true);
      expect(cell('shared', position, 'model_gone').pass).toBe(true);
      for (const fault of ['credential', 'quota']) {
        const scenario = cell('shared', position, fault);
        expect(failing(scenario), fault).toEqual(['answered']);
        expect(scenario.verdicts[0]!.advice).toBe(`add a fallback on another connection: a ${fault} failure takes the whole connection down`);
        if (fault === 'quota') expect(scenario.verdicts.find((verdict) => verdict.goal === 'no_retry_on_quota')).toMatchObject({ pass: true });
      }
    }
    expect(trapConnections).toBe(0);
  },
  REHEARSAL_TIMEOUT_MS + 10_000,
);

it(
  'prints a table per route with each verdict and time, the advice once per route, and a summary line',
  async () => {
    const run = await runCli(['rehearse', '--config', configFile, '--route', 'alone,sturdy', '--fault', 'server_error,cut'], { timeoutMs: REHEARSAL_TIMEOUT_MS });
    expect(run.code, run.stderr).toBe(1);
    const [alone, sturdy, summary] = run.stdout.trim().split('\n\n') as [string, string, string];
    expect(alone.split('\n')[0]).toBe('route alone');
    expect(alone.split('\n')[1]).toMatch(/^fault\s+1\. openai\/gpt-4\.1-mini$/);
    expect(alone).toMatch(/\nserver_error\s+FAIL \d+\.\ds \(answered\)/);
    expect(alone).toContain('  advice: add a fallback target, on another connection (server_error@1, cut@1)');
    expect(sturdy.split('\n')[1]).toMatch(/^fault\s+1\. openai\/gpt-4\.1-mini\s+2\. anthropic\/claude-sonnet-4-5$/);
    expect(sturdy).toMatch(/\nserver_error\s+pass \d+\.\ds\s+pass \d+\.\ds/);
    expect(sturdy).toMatch(/\ncut\s+FAIL \d+\.\ds \(answered\)\s+pass/);
    expect(summary).toMatch(/^6 scenarios in \d+\.\d s: 3 passed, 3 failed$/);
  },
  REHEARSAL_TIMEOUT_MS + 10_000,
);

it(
  'brings a flapping primary back into service within 5 s of its recovery, by the default recovery probes',
  async () => {
    const run = await runCli(['rehearse', '--config', configFile, '--route', 'sturdy', '--fault', 'flapping', '--json'], { timeoutMs: REHEARSAL_TIMEOUT_MS });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    const [primary, standby] = rehearsalSchema.parse(JSON.parse(run.stdout)).scenarios;
    expect(primary!.calls.length).toBeGreaterThanOrEqual(15);
    expect(primary!.calls.every((call) => call.answered)).toBe(true);
    expect(primary!.verdicts.find((verdict) => verdict.goal === 'back_in_service')).toMatchObject({ pass: true });
    // While down, the standby served; after, the primary again.
    expect(primary!.calls[1]!.served_by).toBe('anthropic/claude-sonnet-4-5');
    expect(primary!.calls.at(-1)!.served_by).toBe('openai/gpt-4.1-mini');
    expect(standby!.verdicts.map((verdict) => verdict.goal)).not.toContain('back_in_service');
  },
  REHEARSAL_TIMEOUT_MS + 10_000,
);

it('refuses an unknown fault or route with exit 2, naming what there is', async () => {
  const fault = await runCli(['rehearse', '--config', configFile, '--fault', 'meteor']);
  expect(fault.code).toBe(2);
  expect(fault.stderr).toContain('unknown fault meteor (faults: rate_limit_short,');
  const route = await runCli(['rehearse', '--config', configFile, '--route', 'nowhere']);
  expect(route.code).toBe(2);
  expect(route.stderr).toContain('no route named nowhere in the config (routes: sturdy, alone, shared)');
});
