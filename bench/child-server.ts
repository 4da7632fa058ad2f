import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** A server running in its own Node process, so it never shares an event loop with the load. */
export interface ChildServer {
  name: string;
  url: string;
  pid: number;
  /** SIGTERM, then SIGKILL (by this child's pid) if it has not exited within the grace period. */
  stop(): Promise<void>;
}

const startTimeoutMs = 15_000;
const stopGraceMs = 5_000;

const running = new Set<ChildProcess>();

/**
 * Spawns `node [nodeFlags] bench/servers/<script> [args]` (compiled, next to this module) and
 * waits for the URL it announces on stdout. stdin is a pipe the child watches, so even a
 * crashed parent cannot leave it behind.
 */
export async function startChildServer(
  name: string,
  script: string,
  args: readonly string[] = [],
  nodeFlags: readonly string[] = [],
): Promise<ChildServer> {
  const scriptPath = fileURLToPath(new URL(`./servers/${script}`, import.meta.url));
  const child = spawn(process.execPath, [...nodeFlags, scriptPath, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${name}: could not spawn ${scriptPath}`);

  let url: string;
  try {
    url = await readAnnouncedUrl(name, child);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { name, url, pid, stop: () => stopChild(child) };
}

/** Stops every child still running; for the parent's error and signal paths. */
export async function stopAllChildServers(): Promise<void> {
  await Promise.all([...running].map((child) => stopChild(child)));
}

function readAnnouncedUrl(name: string, child: ChildProcess): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const settle = (outcome: () => void): void => {
      clearTimeout(timer);
      child.off('exit', onExit);
      lines.close();
      // Keep draining stdout, so a chatty child can never block on a full pipe.
      child.stdout?.resume();
      outcome();
    };
    const onExit = (code: number | null): void =>
      settle(() => reject(new Error(`${name} exited (code ${code}) before announcing its URL`)));
    const timer = setTimeout(
      () => settle(() => reject(new Error(`${name} did not announce its URL within ${startTimeoutMs} ms`))),
      startTimeoutMs,
    );
    child.once('exit', onExit);
    lines.once('line', (line) => {
      settle(() => {
        const url = announcedUrl(line);
        if (url === undefined) reject(new Error(`${name} announced something other than {"url": …}: ${line}`));
        else resolve(url);
      });
    });
  });
}

function announcedUrl(line: string): string | undefined {
  let announced: unknown;
  try {
    announced = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof announced !== 'object' || announced === null || !('url' in announced)) return undefined;
  return typeof announced.url === 'string' ? announced.url : undefined;
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), stopGraceMs);
    child.once('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
