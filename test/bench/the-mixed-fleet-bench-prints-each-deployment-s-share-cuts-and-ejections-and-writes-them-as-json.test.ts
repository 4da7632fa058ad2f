import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { escapeRegExp, runBenchScript } from './run-bench-script.js';

const RUN_TIMEOUT_MS = 120_000;
let directory: string | undefined;

afterEach(() => {
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

const ROUTES = ['slow-same-connection', 'slow-other-connection', 'silent', 'flapping', 'long-prompts'];

it(
  'npm run bench:mixed -- --requests 2 prints a row per route with its first target\'s share, cuts, ejections, state and latency, and writes the same as JSON',
  async () => {
    directory = mkdtempSync(join(tmpdir(), 'switchyard-mixed-smoke-'));
    const jsonFile = join(directory, 'mixed.json');
    const { code, stdout, stderr } = await runBenchScript('mixed-fleet.js', ['--requests', '2', '--json', jsonFile], RUN_TIMEOUT_MS);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });

    expect(stdout).toContain('== Mixed fleet after 40 answers of a/gpt-4.1-mini: 2 streamed requests per route');
    expect(stdout).toMatch(/^route +first target +served \(working tree\) +cuts +found ejected +state at the end +p50 \/ p99$/m);
    for (const route of ROUTES) expect(stdout).toMatch(new RegExp(`^${escapeRegExp(route)} +a?b?/\\S+ +\\d / 2 +\\d+ +\\d+ +[a-z_-]+ +\\d+\\.\\d\\d s / \\d+\\.\\d\\d s$`, 'm'));

    const [run] = JSON.parse(readFileSync(jsonFile, 'utf8')) as { label: string; figures: { route: string; requests: number; served: number; cuts: number; state: string }[] }[];
    expect(run!.label).toBe('working tree');
    expect(run!.figures.map((figures) => [figures.route, figures.requests])).toEqual(ROUTES.map((route) => [route, 2]));
    // The two requests to a primary silent from the start are each cut at a guess, neither counted.
    expect(run!.figures.find((figures) => figures.route === 'silent')).toMatchObject({ served: 0, cuts: 2, state: 'healthy' });
    expect(run!.figures.find((figures) => figures.route === 'long-prompts')).toMatchObject({ served: 2, cuts: 0 });
  },
  RUN_TIMEOUT_MS + 5_000,
);
