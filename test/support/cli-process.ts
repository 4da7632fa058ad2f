import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/** The built CLI (`npm run build` first): tests run it as an operator would. */
export const CLI = join(process.cwd(), 'dist', 'src', 'cli', 'main.js');

/**
 * How long a CLI run, or a started process's wait for a line, may take before the test gives up.
 * A start takes about 2 s at rest, but CI runs on a busy 2-core machine where load stretches it
 * tenfold: the limit is sized for that, and a healthy run never waits for it (docs/testing.md).
 */
export const PROCESS_START_TIMEOUT_MS = 60_000;

export interface CliOptions {
  cwd?: string;
  /** The whole environment of the child (PATH is added): nothing leaks in from the test runner's. */
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function spawnCli(args: readonly string[], options: CliOptions): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs a command to its end (killed past `timeoutMs`) and returns its exit code and output. */
export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const child = spawnCli(args, options);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? PROCESS_START_TIMEOUT_MS);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A long-running command (`serve`), read as it writes. */
export interface CliProcess {
  readonly child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the first match of `pattern` in the output, now or later; rejects past the timeout or at exit. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** SIGTERM, then SIGKILL if it has not exited within 10 s; resolves with the exit code. */
  stop(): Promise<number | null>;
}

export function startCli(args: readonly string[], options: CliOptions = {}): CliProcess {
  const child = spawnCli(args, options);
  let output = '';
  let exited = false;
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const waiter of waiters) waiter();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const closed = new Promise<number | null>((resolve) =>
    child.once('close', (code) => {
      exited = true;
      for (const waiter of waiters) waiter();
      resolve(code);
    }),
  );
  return {
    child,
    output: () => output,
    waitFor(pattern, timeoutMs = PROCESS_START_TIMEOUT_MS) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => finish(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms; output:\n${output}`))), timeoutMs);
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          settle();
        };
        const check = () => {
          const match = pattern.exec(output);
          if (match) finish(() => resolve(match));
          else if (exited) finish(() => reject(new Error(`exited before ${pattern}; output:\n${output}`)));
        };
        waiters.add(check);
        check();
      });
    },
    async stop() {
      if (!exited) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await closed;
      clearTimeout(timer);
      return code;
    },
  };
}
