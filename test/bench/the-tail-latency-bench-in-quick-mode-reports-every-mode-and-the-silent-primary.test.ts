import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { escapeRegExp, runBenchScript } from './run-bench-script.js';

const RUN_TIMEOUT_MS = 60_000;
let directory: string | undefined;

afterEach(() => {
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

it(
  'npm run bench:tail -- --quick prints a row per mode, the targets and the silent primary, and writes the same as JSON',
  async () => {
    directory = mkdtempSync(join(tmpdir(), 'switchyard-tail-smoke-'));
    const jsonFile = join(directory, 'tail.json');
    const { code, stdout, stderr } = await runBenchScript('tail-latency.js', ['--quick', '--json', jsonFile], RUN_TIMEOUT_MS);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });

    for (const mode of ['healthy (no tail)', 'neither (first_token_ms: 30000)', 'first_token_ms: auto (the default)', 'hedge: { after_ms: auto }']) expect(stdout).toMatch(new RegExp(`^\\| ${escapeRegExp(mode)} \\| \\d+ \\| \\d+ \\| \\d+ \\| \\d+ / \\d+ \\| \\d+ \\| \\d+\\.\\d % \\|$`, 'm'));
    expect(stdout).toMatch(/^  hedge p99 \d+ ms ≤ 3 × healthy p95 \(\d+ ms\): (PASS|MISS)$/m);
    expect(stdout).toMatch(/silent primary behind auto \(warmed with 25 answers\): timeout in force \d+ ms, standby's whole answer after \d+ ms/);

    const report = JSON.parse(readFileSync(jsonFile, 'utf8')) as { modes: { mode: string; ttftP99Ms: number; extraUpstreamPerCallerRequest: number }[]; silentPrimary: { timeoutInForceMs: number[]; failoverMs: number[] } };
    expect(report.modes.map((mode) => mode.mode)).toEqual(['healthy (no tail)', 'neither (first_token_ms: 30000)', 'first_token_ms: auto (the default)', 'hedge: { after_ms: auto }']);
    for (const mode of report.modes) {
      expect(mode.ttftP99Ms).toBeGreaterThan(0);
      expect(mode.extraUpstreamPerCallerRequest).toBeGreaterThanOrEqual(0);
    }
    expect(report.silentPrimary.failoverMs).toHaveLength(2);
    // Warmed, the primary's learned timeout is in force rather than the maximum.
    expect(report.silentPrimary.timeoutInForceMs.every((timeoutMs) => timeoutMs < 30_000)).toBe(true);
  },
  RUN_TIMEOUT_MS + 5_000,
);
