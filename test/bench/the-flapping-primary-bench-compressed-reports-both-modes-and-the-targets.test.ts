import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { escapeRegExp, runBenchScript } from './run-bench-script.js';

const RUN_TIMEOUT_MS = 90_000;
let directory: string | undefined;

afterEach(() => {
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

it(
  'npm run bench:flapping with a compressed outage prints a row per mode and the targets, and writes the same as JSON',
  async () => {
    directory = mkdtempSync(join(tmpdir(), 'switchyard-flapping-smoke-'));
    const jsonFile = join(directory, 'flapping.json');
    const args = ['--outage-s', '4', '--every-ms', '300', '--lead-s', '1', '--after-s', '4', '--json', jsonFile];
    const { code, stdout, stderr } = await runBenchScript('flapping-primary.js', args, RUN_TIMEOUT_MS);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });

    const seconds = '(\\d+\\.\\d\\d s|never \\(within 4 s\\))';
    for (const mode of ['default (recovery_probe_s: 2)', 'recovery_probe_s: 0 (caller trials only)']) {
      expect(stdout).toMatch(new RegExp(`^\\| ${escapeRegExp(mode)} \\| 1 \\| ${seconds}( \\((probe|caller)\\))? \\| ${seconds} \\| \\d+ \\+ \\d+ = \\d+ \\| \\d+ of \\d+ \\| \\d+ \\(of \\d+\\) \\|$`, 'm'));
    }
    expect(stdout).toMatch(/^ {2}run 1: back on the primary .* ≤ 3 s: (PASS|MISS); \d+ upstream requests to the primary during the outage ≤ 40: (PASS|MISS); every caller answered, by the standby during the outage: (PASS|MISS)$/m);

    const report = JSON.parse(readFileSync(jsonFile, 'utf8')) as { runs: { mode: string; callers: number; callersNotAnswered: number; duringOutage: { probes: number; callers: number } }[] };
    expect(report.runs.map((run) => run.mode)).toEqual(['default (recovery_probe_s: 2)', 'recovery_probe_s: 0 (caller trials only)']);
    for (const run of report.runs) {
      expect(run.callers).toBeGreaterThan(0);
      expect(run.callersNotAnswered).toBe(0);
    }
    // Without recovery probes the gateway sends none.
    expect(report.runs[1]!.duringOutage.probes).toBe(0);
  },
  RUN_TIMEOUT_MS + 5_000,
);
