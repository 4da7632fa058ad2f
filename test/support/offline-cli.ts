import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Runs a real client CLI (Claude Code, Codex) against a gateway, offline: an environment built
 * from scratch (so no developer's keys or proxy variables leak in), a refusing proxy in
 * HTTPS_PROXY / HTTP_PROXY that records any connection the CLI tries to anywhere but loopback,
 * its own process group (ending it ends whatever it started), and a hard time bound.
 */

export interface OfflineRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  durationMs: number;
  /** Connections it tried to open to anywhere but the gateway (`host:port` or a URL), refused. */
  outsideConnections: string[];
}

/** A run's ending and output, for an assertion's message: `<command>: exit 1 in 840 ms` and both streams. */
export function describeRun(command: string, run: OfflineRun, timeoutMs: number): string {
  const ending = run.timedOut ? `killed after ${timeoutMs} ms` : `exit ${run.exitCode}${run.signal ? ` (${run.signal})` : ''}`;
  return `${command}: ${ending} in ${run.durationMs} ms\n--- stdout ---\n${run.stdout}\n--- stderr ---\n${run.stderr}`;
}

export async function runOffline(options: {
  command: string;
  args: readonly string[];
  cwd: string;
  /** The whole environment but the proxy variables, which are added here. */
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
}): Promise<OfflineRun> {
  const tripwire = await startTripwireProxy();
  const env: NodeJS.ProcessEnv = { ...options.env, HTTPS_PROXY: tripwire.url, HTTP_PROXY: tripwire.url, NO_PROXY: '127.0.0.1,localhost' };
  const startedAt = Date.now();
  try {
    const ended = await new Promise<Omit<OfflineRun, 'outsideConnections'>>((resolve, reject) => {
      const child = spawn(options.command, options.args, { cwd: options.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      let timedOut = false;
      let exit: { exitCode: number | null; signal: NodeJS.Signals | null } = { exitCode: null, signal: null };
      child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
      child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup(child.pid);
      }, options.timeoutMs);
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      // A leftover descendant could hold the pipes open: it goes with the group at exit.
      child.on('exit', (exitCode, signal) => {
        exit = { exitCode, signal };
        killGroup(child.pid);
      });
      child.on('close', () => {
        clearTimeout(timer);
        resolve({ ...exit, timedOut, stdout, stderr, durationMs: Date.now() - startedAt });
      });
    });
    return { ...ended, outsideConnections: tripwire.seen };
  } finally {
    await tripwire.close();
  }
}

/** A loopback HTTP proxy that refuses everything and remembers where each request wanted to go. */
async function startTripwireProxy(): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server: Server = createServer((request, response) => {
    seen.push(request.url ?? '');
    response.writeHead(403).end();
  });
  server.on('connect', (request, socket) => {
    seen.push(request.url ?? '');
    socket.on('error', () => {});
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
}
