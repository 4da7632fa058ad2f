import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli-process.js';

const directory = mkdtempSync(join(tmpdir(), 'switchyard-hedge-'));

afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A config whose one route has these `hedge` lines (block style, so each key has its line). */
async function checkConfig(name: string, hedge: string): Promise<CliResult> {
  const file = join(directory, `${name}.yaml`);
  writeFileSync(
    file,
    `auth: { mode: none }
connections:
  mock: { provider: mock }
routes:
  r:
    targets: [{ connection: mock, model: m }, { connection: mock, model: n }]
    hedge:
${hedge}
`,
  );
  return runCli(['check-config', file]);
}

it('check-config accepts a hedge with a number or auto, with or without max_extra', async () => {
  for (const [name, hedge] of [
    ['number', '      after_ms: 2000'],
    ['auto', '      after_ms: auto\n      max_extra: 3'],
  ] as const) {
    const { code, stdout, stderr } = await checkConfig(name, hedge);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/: ok/);
  }
});

it('check-config names each bad hedge key at its line', async () => {
  const word = await checkConfig('word', '      after_ms: soon');
  expect(word.code).toBe(1);
  expect(word.stderr).toContain('routes.r.hedge.after_ms: expected a whole number of milliseconds above 0, or auto (got "soon") (line 8)');

  const many = await checkConfig('many', '      after_ms: 100\n      max_extra: 4');
  expect(many.code).toBe(1);
  expect(many.stderr).toContain('routes.r.hedge.max_extra: expected 1, 2 or 3 (got 4) (line 9)');

  const missing = await checkConfig('missing', '      max_extra: 1');
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain('routes.r.hedge.after_ms:');
});
