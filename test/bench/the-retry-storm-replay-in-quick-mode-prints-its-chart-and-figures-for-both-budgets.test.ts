import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runBenchScript } from './run-bench-script.js';

const RUN_TIMEOUT_MS = 90_000;
let directory: string | undefined;

afterEach(() => {
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

it(
  'npm run bench:retry-storm -- --quick charts each budget second by second, prints its figures, and writes the series as JSON',
  async () => {
    directory = mkdtempSync(join(tmpdir(), 'switchyard-storm-smoke-'));
    const jsonFile = join(directory, 'storm.json');
    const { code, stdout, stderr } = await runBenchScript('retry-storm.js', ['--quick', '--json', jsonFile], RUN_TIMEOUT_MS);
    // A caller's failure is a figure (the first is named on stderr), not a broken run; a warning of Node's is.
    expect(code, stderr).toBe(0);
    expect(stderr).not.toContain('Warning');

    const report = JSON.parse(readFileSync(jsonFile, 'utf8')) as {
      options: { baselineS: number; faultS: number; recoveryS: number };
      modes: { mode: string; series: Record<string, number[]>; figures: Record<string, number | boolean>; answers: { answered: number } }[];
    };
    const seconds = report.options.baselineS + report.options.faultS + report.options.recoveryS;
    expect(report.modes.map((mode) => mode.mode)).toEqual([
      'retry_budget at its defaults (ratio 0.1, min_per_second 5)',
      'retry_budget too large to bind (ratio 1, min_per_second 1000000)',
    ]);
    for (const mode of report.modes) {
      expect(stdout).toContain(`\n${mode.mode}\n`);
      for (const name of ['toPrimary', 'toStandby', 'sent', 'callerRetries', 'inFlight']) expect(mode.series[name]).toHaveLength(seconds);
      expect(mode.answers.answered).toBeGreaterThan(0);
      for (const figure of ['primaryBaselinePerSecond', 'primaryPeakRatio', 'callerRetries', 'inFlightSteady', 'inFlightDuringFault', 'inFlightRatio', 'inFlightWorstSecond']) expect(typeof mode.figures[figure]).toBe('number');
      expect(typeof mode.figures.everyCallerAnsweredByStandby).toBe('boolean');
    }
    // One chart row per series, one character per second, then its maximum.
    for (const row of ['to primary /s', 'to standby /s', 'caller retries /s', 'in flight (peak)']) {
      expect(stdout).toMatch(new RegExp(`^  ${row.replace(/[()/]/g, '\\$&')} +[· ▁▂▃▄▅▆▇█]{${seconds}}  max \\d+$`, 'm'));
    }
    for (const figure of ['outbound to the primary: baseline', "callers' own retries:", 'in flight: steady', 'every caller answered by the standby:']) expect(stdout.split(figure)).toHaveLength(3);
  },
  RUN_TIMEOUT_MS + 5_000,
);
