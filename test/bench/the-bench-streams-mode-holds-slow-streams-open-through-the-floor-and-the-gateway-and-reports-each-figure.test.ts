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

interface StreamsResults {
  answer: { chunks: number; chunkMs: number };
  runs: { streams: number; path: string; connectS: number; listenOverflows: number; completed: number; errors: number; plateauS: number; cpuUsPerChunk?: number; rssPerStreamBytes?: number; idleRssBytes: number; peakRssBytes: number; ttfbP99Ms: number; gapP99Ms: number; plateauGapP99Ms?: number }[];
  targets: { target: string }[];
}

it(
  'npm run bench -- --streams 20 holds 20 slow streams open through the floor and the gateway and prints errors, TTFB, gaps, CPU per chunk, RSS per stream and the targets',
  async () => {
    directory = mkdtempSync(join(tmpdir(), 'switchyard-streams-smoke-'));
    const jsonFile = join(directory, 'streams.json');
    const args = ['--streams', '20', '--stream-s', '2', '--chunk-ms', '50', '--warmup', '0', '--json', jsonFile];
    const { code, stdout, stderr } = await runBenchScript('run.js', args, RUN_TIMEOUT_MS);
    expect(code, stderr).toBe(0);

    const report = JSON.parse(readFileSync(jsonFile, 'utf8')) as StreamsResults;
    expect(report.answer).toEqual({ chunks: 40, chunkMs: 50 });
    expect(report.runs.map((run) => run.path)).toEqual(['bare-proxy', 'gateway']);
    for (const run of report.runs) {
      expect({ path: run.path, streams: run.streams, completed: run.completed, errors: run.errors }).toEqual({ path: run.path, streams: 20, completed: 20, errors: 0 });
      expect(run.plateauS).toBeGreaterThan(0);
      expect(run.connectS).toBeGreaterThan(0);
      expect(run.listenOverflows).toBeGreaterThanOrEqual(0);
      expect(run.cpuUsPerChunk).toBeGreaterThan(0);
      expect(typeof run.rssPerStreamBytes).toBe('number');
      expect(run.peakRssBytes).toBeGreaterThanOrEqual(run.idleRssBytes);
      // A chunk every 50 ms: no gap can be shorter than the schedule by much, nor the p99 below it.
      expect(run.gapP99Ms).toBeGreaterThan(40);
      expect(run.plateauGapP99Ms).toBeGreaterThan(40);
    }

    expect(stdout).toContain('== Concurrent streams: each 40 chunks 50 ms apart');
    expect(stdout).toMatch(/^20 +gateway +\d+\.\d +\d+ +20 +0 +\d+\.\d +\d+\.\d +\d+\.\d +\d+\.\d +\d+\.\d +\d+ +\d+\.\d\d +\d+\.\d\d +\d+\.\d\d +\d+ +\d+ +-?\d+\.\d$/m);
    expect(stdout).toMatch(/^20 +gateway +\d+\.\d\d× +[+-]\d+\.\d\d +[+-]\d+\.\d\d +[+-]\d+\.\d\d$/m);
    for (const target of ['errors (gateway + floor)', 'CPU per chunk: gateway ÷ floor', 'RSS per open stream above idle', 'added inter-chunk gap p99 over the plateau: gateway − floor']) {
      expect(stdout).toMatch(new RegExp(`^20 streams: ${escapeRegExp(target)} +.* (PASS|MISS)$`, 'm'));
    }
    expect(report.targets).toHaveLength(4);
  },
  RUN_TIMEOUT_MS + 5_000,
);
