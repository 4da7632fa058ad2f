import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli-process.js';

const directory = mkdtempSync(join(tmpdir(), 'switchyard-first-token-'));

afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A config whose one route has these `timeouts` lines (block style, so each key has its line). */
async function checkConfig(name: string, timeouts: string): Promise<CliResult> {
  const file = join(directory, `${name}.yaml`);
  writeFileSync(
    file,
    `auth: { mode: none }
connections:
  mock: { provider: mock }
routes:
  r:
    targets: [{ connection: mock, model: m }]
    timeouts:
${timeouts}
`,
  );
  return runCli(['check-config', file]);
}

it('check-config accepts first_token_ms: auto, with or without its bounds', async () => {
  for (const [name, timeouts] of [
    ['auto', '      first_token_ms: auto'],
    ['auto-bounded', '      first_token_ms: auto\n      first_token_min_ms: 300\n      first_token_max_ms: 300'],
  ] as const) {
    const { code, stdout, stderr } = await checkConfig(name, timeouts);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/: ok/);
  }
});

it('check-config refuses a first_token_max_ms below first_token_min_ms, at the line of the maximum', async () => {
  const { code, stderr } = await checkConfig('crossed', '      first_token_ms: auto\n      first_token_min_ms: 5000\n      first_token_max_ms: 2000');
  expect(code).toBe(1);
  expect(stderr).toContain('routes.r.timeouts.first_token_max_ms: must be at least first_token_min_ms (5000) (line 10)');
});

it('check-config refuses a first_token_min_ms above the default maximum, at its own line', async () => {
  const { code, stderr } = await checkConfig('min-above-default', '      first_token_ms: auto\n      first_token_min_ms: 40000');
  expect(code).toBe(1);
  expect(stderr).toContain('routes.r.timeouts.first_token_min_ms: must be at most first_token_max_ms (30000, the default) (line 9)');
});

it('check-config names first_token_ms when it is neither a number nor auto', async () => {
  const { code, stderr } = await checkConfig('word', '      first_token_ms: fast');
  expect(code).toBe(1);
  expect(stderr).toContain('routes.r.timeouts.first_token_ms: expected a whole number of milliseconds above 0, or auto (got "fast") (line 8)');
});
