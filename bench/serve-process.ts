import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** The built CLI, as `npm start` runs it; paths are taken from the repository root (the working directory). */
const CLI = join(process.cwd(), 'dist', 'src', 'cli', 'main.js');

const START_TIMEOUT_MS = 15_000;

export interface ServeExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** `Date.now()` when the exit was seen. */
  atMs: number;
}

/** `switchyard serve` in a process of its own, as an operator runs it, for what only real signals show. */
export interface ServeProcess {
  url: string;
  pid: number;
  /** Its stdout log, one parsed pino line each (non-JSON lines are kept as `{ text }`). */
  readonly logs: Record<string, unknown>[];
  exited: Promise<ServeExit>;
  signal(name: NodeJS.Signals): void;
  /** SIGKILL by this child's pid unless it has already exited; for cleanup after a failed test. */
  kill(): Promise<ServeExit>;
}

/** Spawns `node dist/src/cli/main.js serve --config FILE --port 0` (or another build's CLI) and waits for the URL it logs. */
export async function startServeProcess(configFile: string, cliPath = CLI): Promise<ServeProcess> {
  const child = spawn(process.execPath, [cliPath, 'serve', '--config', configFile, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    // None of the caller's secrets (provider keys in the environment) may reach the config.
    env: { PATH: process.env.PATH },
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not spawn ${cliPath}`);
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = new Promise<ServeExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, atMs: Date.now() })));
  const kill = async (): Promise<ServeExit> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    return exited;
  };

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not log its URL within ${START_TIMEOUT_MS} ms; stderr: ${stderr}`)), START_TIMEOUT_MS);
    void exited.then((exit) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (code ${exit.code}) before listening; stderr: ${stderr}`));
    });
    createInterface({ input: child.stdout }).on('line', (line) => {
      const entry = parseLine(line);
      logs.push(entry);
      if (typeof entry.url === 'string' && String(entry.msg).startsWith('Switchyard listening')) {
        clearTimeout(timer);
        resolve(entry.url);
      }
    });
  }).catch(async (error: unknown) => {
    await kill();
    throw error;
  });
  return { url, pid, logs, exited, signal: (name) => child.kill(name), kill };
}

function parseLine(line: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed === 'object' && parsed !== null) return parsed as Record<string, unknown>;
  } catch {
    // Not a log line of pino's: kept as text.
  }
  return { text: line };
}
