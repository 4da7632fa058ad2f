import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli-process.js';

const directory = mkdtempSync(join(tmpdir(), 'switchyard-recovery-probe-'));

afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A config whose one route has this `recovery_probe_s` value, on line 8. */
async function checkConfig(name: string, value: string): Promise<CliResult> {
  const file = join(directory, `${name}.yaml`);
  writeFileSync(
    file,
    `auth: { mode: none }
connections:
  mock: { provider: mock }
routes:
  r:
    targets: [{ connection: mock, model: m }, { connection: mock, model: n }]
    health:
      recovery_probe_s: ${value}
`,
  );
  return runCli(['check-config', file]);
}

it('check-config accepts recovery_probe_s of 0 (off) and of any number of seconds', async () => {
  for (const [name, value] of [
    ['off', '0'],
    ['whole', '2'],
    ['fraction', '0.5'],
  ] as const) {
    const { code, stdout, stderr } = await checkConfig(name, value);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/: ok/);
  }
});

it('check-config names a negative or non-numeric recovery_probe_s at its line', async () => {
  const negative = await checkConfig('negative', '-1');
  expect(negative.code).toBe(1);
  expect(negative.stderr).toContain('routes.r.health.recovery_probe_s: expected a number of seconds, or 0 for no recovery probes (got -1) (line 8)');

  const word = await checkConfig('word', 'often');
  expect(word.code).toBe(1);
  expect(word.stderr).toContain('routes.r.health.recovery_probe_s: expected a number of seconds, or 0 for no recovery probes (got "often") (line 8)');
});
