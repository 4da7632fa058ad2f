import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/support/free-port.js';
import { pinnedCommand } from './cpu-layout.js';

/** A server running in its own Node process, so it never shares an event loop with the load. */
export interface ChildServer {
  name: string;
  url: string;
  pid: number;
  /** SIGTERM, then SIGKILL (by this child's pid) if it has not exited within the grace period. */
  stop(): Promise<void>;
}

// A gateway starts in a second or two; on a machine shared with test runs, much later.
const startTimeoutMs = 30_000;
// Beyond a gateway's default drain (10 s) and the time a loaded machine takes to write a CPU profile.
const stopGraceMs = 15_000;
const healthPollMs = 100;
// A port taken between picking it and the gateway binding it: try another, a few times.
const serveAttempts = 3;

const running = new Set<ChildProcess>();

/**
 * Spawns `node [nodeFlags] bench/servers/<script> [args]` (compiled, next to this module), under
 * `taskset -c cpus` when given, and waits for the URL it announces on stdout. stdin is a pipe
 * the child watches, so even a crashed parent cannot leave it behind.
 */
export async function startChildServer(
  name: string,
  script: string,
  args: readonly string[] = [],
  nodeFlags: readonly string[] = [],
  cpus?: string,
): Promise<ChildServer> {
  const scriptPath = serverScript(script);
  const child = spawnChild(cpus, [...nodeFlags, scriptPath, ...args], ['pipe', 'pipe', 'inherit'], process.env);
  let url: string;
  try {
    url = await readAnnouncedUrl(name, child);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { name, url, pid: child.pid!, stop: () => stopChild(child) };
}

/**
 * `switchyard serve --config FILE --port P` from a built CLI (`dist/src/cli/main.js` of the
 * working tree or of a baseline build), as an operator runs it — logger, config watch and all —
 * loaded by `servers/serve-cli.js`, which adds only the bench children's stdin watch. Its log
 * goes to /dev/null (each line is still built and written); it is up when `GET /healthz` answers.
 */
export async function startServeCli(
  name: string,
  cliPath: string,
  configFile: string,
  options: { nodeFlags?: readonly string[]; cpus?: string } = {},
): Promise<ChildServer> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const args = [...(options.nodeFlags ?? []), serverScript('serve-cli.js'), cliPath, 'serve', '--config', configFile, '--port', String(port)];
    // Only PATH: none of the caller's secrets (provider keys) may reach the config.
    const child = spawnChild(options.cpus, args, ['pipe', 'ignore', 'inherit'], { PATH: process.env.PATH });
    const outcome = await waitUntilHealthy(child, url);
    if (outcome === 'healthy') return { name, url, pid: child.pid!, stop: () => stopChild(child) };
    await stopChild(child);
    if (outcome === 'timeout') throw new Error(`${name} did not answer ${url}/healthz within ${startTimeoutMs} ms`);
    if (attempt === serveAttempts) throw new Error(`${name} exited before serving (code ${outcome.code}); its stderr is above`);
  }
}

/** Stops every child still running; for the parent's error and signal paths. */
export async function stopAllChildServers(): Promise<void> {
  await Promise.all([...running].map((child) => stopChild(child)));
}

function serverScript(script: string): string {
  return fileURLToPath(new URL(`./servers/${script}`, import.meta.url));
}

function spawnChild(
  cpus: string | undefined,
  nodeArgs: readonly string[],
  stdio: ['pipe', 'pipe' | 'ignore', 'inherit'],
  env: NodeJS.ProcessEnv,
): ChildProcess {
  const { command, args } = pinnedCommand(cpus, process.execPath, nodeArgs);
  const child = spawn(command, args, { stdio, env });
  if (child.pid === undefined) throw new Error(`could not spawn ${command} ${args.join(' ')}`);
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

async function waitUntilHealthy(child: ChildProcess, url: string): Promise<'healthy' | 'timeout' | { code: number | null }> {
  const deadline = Date.now() + startTimeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode };
    try {
      const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1_000) });
      await response.arrayBuffer();
      if (response.status === 200) return 'healthy';
    } catch {
      // Not listening yet.
    }
    await sleep(healthPollMs);
  }
  return 'timeout';
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
