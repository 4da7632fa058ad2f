import { spawn, execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, it } from 'vitest';
import { buildBaseline } from '../../bench/baseline-build.js';

const BUILD_TIMEOUT_MS = 150_000;
const INTERRUPT_TIMEOUT_MS = 60_000;
const repositoryRoot = process.cwd();

function worktrees(): string {
  return execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: repositoryRoot, encoding: 'utf8' });
}

it(
  'buildBaseline(HEAD) checks HEAD out in a temporary worktree on the shared node_modules, builds its CLI, and remove() leaves no worktree behind',
  async () => {
    const baseline = await buildBaseline('HEAD', repositoryRoot);
    const directory = baseline.cliPath.slice(0, -join('dist', 'src', 'cli', 'main.js').length - 1);
    try {
      expect(baseline.label).toBe(execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repositoryRoot, encoding: 'utf8' }).trim());
      expect(existsSync(baseline.cliPath)).toBe(true);
      expect(worktrees()).toContain(`worktree ${directory}\n`);
      // HEAD's package-lock.json is the working tree's: its node_modules are linked, not installed again.
      const modules = join(directory, 'node_modules');
      expect(lstatSync(modules).isSymbolicLink()).toBe(true);
      expect(readlinkSync(modules)).toBe(realpathSync(join(repositoryRoot, 'node_modules')));
    } finally {
      baseline.remove();
    }
    expect(existsSync(directory)).toBe(false);
    expect(worktrees()).not.toContain(directory);
    expect(existsSync(join(repositoryRoot, 'node_modules', 'undici'))).toBe(true);
  },
  BUILD_TIMEOUT_MS,
);

it(
  'npm run bench -- --baseline HEAD interrupted while it builds exits 130 and removes its worktree',
  async () => {
    const child = spawn(process.execPath, [join(repositoryRoot, 'dist', 'bench', 'run.js'), '--baseline', 'HEAD', '--duration', '1'], {
      cwd: repositoryRoot,
      env: { PATH: process.env.PATH },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const killer = setTimeout(() => child.kill('SIGKILL'), INTERRUPT_TIMEOUT_MS - 5_000);
    let directory: string | undefined;
    for await (const line of createInterface({ input: child.stdout })) {
      directory ??= /checking it out in (\S+)$/.exec(line)?.[1];
      if (line.endsWith(': building it')) break;
    }
    expect(directory).toBeDefined();
    expect(existsSync(directory!)).toBe(true);
    child.kill('SIGINT');
    const code = await exited;
    clearTimeout(killer);
    expect(code).toBe(130);
    expect(existsSync(directory!)).toBe(false);
    expect(worktrees()).not.toContain(directory!);
  },
  INTERRUPT_TIMEOUT_MS,
);
