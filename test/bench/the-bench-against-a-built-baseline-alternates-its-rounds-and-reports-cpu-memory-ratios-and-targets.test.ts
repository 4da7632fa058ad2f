import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { escapeRegExp, runBenchScript } from './run-bench-script.js';

// The working tree measured against itself through --baseline-dir: the alternation, the baseline
// columns and the targets without building a commit (a test of the build: a-baseline-ref-*.test.ts).
const RUN_TIMEOUT_MS = 240_000;
let directory: string | undefined;

afterEach(() => {
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

interface Results {
  layout: { description: string };
  baseline: { label: string };
  results: {
    rounds: number;
    paths: { name: string; build: string }[];
    events: Record<string, number>;
    runs: { round: number; scenario: string; path: string; measurement: { cpuUsPerRequest: number; rssAfterWarmupBytes: number; peakRssBytes: number; otherWorkCores: number } }[];
  };
  targets: { target: string; working?: { value: number }; baseline?: { value: number }; translated?: { value: number } }[];
}

it(
  'npm run bench -- --baseline-dir measures both builds in reversed order every other round and prints CPU per request, memory, per-event cost, ratios per round and the targets',
  async () => {
    directory = mkdtempSync(join(tmpdir(), 'switchyard-bench-smoke-'));
    const jsonFile = join(directory, 'bench.json');
    const args = ['--duration', '0.5', '--warmup', '0', '--rounds', '2', '--baseline-dir', process.cwd(), '--json', jsonFile];
    const { code, stdout, stderr } = await runBenchScript('run.js', args, RUN_TIMEOUT_MS);
    expect(code, stderr).toBe(0);

    const report = JSON.parse(readFileSync(jsonFile, 'utf8')) as Results;
    const label = basename(process.cwd());
    expect(report.baseline.label).toBe(label);
    const names = report.results.paths.map((path) => path.name);
    expect(names.slice(0, 4)).toEqual(['direct', 'bare-proxy', `gateway@${label}`, 'gateway']);
    // Every path in every scenario in both rounds, each with its CPU and memory read from /proc.
    expect(report.results.runs).toHaveLength(2 * 4 * names.length);
    for (const { measurement } of report.results.runs) {
      expect(measurement.cpuUsPerRequest).toBeGreaterThan(0);
      expect(measurement.peakRssBytes).toBeGreaterThanOrEqual(measurement.rssAfterWarmupBytes);
      expect(measurement.otherWorkCores).toBeGreaterThanOrEqual(0);
    }
    const firstOfRound = (round: number) => report.results.runs.find((run) => run.round === round)!.path;
    expect([firstOfRound(1), firstOfRound(2)]).toEqual([names[0], names.at(-1)]);
    // 20 and 64 content chunks, plus the role-less finish event and data: [DONE].
    expect(report.results.events['streaming-20']).toBeGreaterThan(20);
    expect(report.results.events['streaming-64']).toBeGreaterThan(64);

    for (const section of ['Throughput and CPU per request (median of 2 rounds', 'Memory per server', 'Streaming: CPU per event', 'Gateways against the floor', `Working tree against ${process.cwd()} (${label}), round by round`, 'Targets (issue 25)']) {
      expect(stdout).toContain(`== ${section}`);
    }
    expect(stdout).toMatch(new RegExp(`^non-streaming +gateway@${escapeRegExp(label)} +\\d+ +\\d+\\.\\d\\d +\\d+\\.\\d\\d +\\d+ +\\d+\\.\\d\\d `, 'm'));
    expect(stdout).toMatch(/^gateway +\d+ +\d+ +\d+\.\d\d×$/m);
    expect(stdout).toMatch(/^streaming-64 +gateway +CPU µs\/req +\d+\.\d\d× +\d+\.\d\d× +\d+\.\d\d×$/m);
    // Working tree, baseline, working ÷ baseline, then the translated path (a Chat caller to an Anthropic-wire target).
    expect(stdout).toMatch(/^CPU per request, non-streaming: gateway ÷ floor +≤ 2\.5× +\d+\.\d\d× +(PASS|MISS) +\d+\.\d\d× +(PASS|MISS) +\d+\.\d\d× +\d+\.\d\d× +(PASS|MISS)$/m);
    expect(stdout).toMatch(/^machine: \d+ CPUs; (pinned|not pinned)/m);
    expect(report.targets.length).toBeGreaterThanOrEqual(6);
    for (const target of report.targets) {
      expect(typeof target.working?.value, target.target).toBe('number');
      expect(typeof target.baseline?.value, target.target).toBe('number');
      // The translated path has no Redis-state twin.
      if (!target.target.includes('Redis')) expect(typeof target.translated?.value, target.target).toBe('number');
    }
  },
  RUN_TIMEOUT_MS + 5_000,
);
