import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * Runs the real Claude Code CLI (the `@anthropic-ai/claude-code` dev dependency) in print mode
 * against a gateway, offline: a fresh HOME and working directory in a temp dir (so it reads no
 * user or project settings and no CLAUDE.md), an environment built from scratch (so no
 * developer's ANTHROPIC_* or proxy variables leak in), every connection but the API calls turned
 * off, a refusing proxy in HTTPS_PROXY that records any other connection it still tries, and a
 * hard time bound.
 */

/** Where the CLI is, or why it cannot be run here. */
export type ClaudeCodeInstall = { binary: string; version: string } | { missing: string };

export interface ClaudeCodeRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  durationMs: number;
  /** Connections it tried to open to anywhere but the gateway (`host:port` or a URL), refused. */
  outsideConnections: string[];
}

/** What Claude Code is given as its API key; the gateway must never pass it on. */
export const CLAUDE_CODE_API_KEY = 'sk-ant-switchyard-test-not-a-key';

/**
 * With these, a print-mode run opens one kind of connection only: the API calls to
 * ANTHROPIC_BASE_URL. The first alone does it (it implies the other three); the rest are set too
 * so that one of them being renamed or narrowed in a later version does not quietly reopen them.
 */
const OFFLINE_ENV = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  DISABLE_AUTOUPDATER: '1',
};

// The package's bin is a placeholder script that its postinstall replaces with the native binary
// of this platform (from an optional dependency on npm); the binary is hundreds of megabytes.
const PLACEHOLDER_MAX_BYTES = 64 * 1024;

export function locateClaudeCode(): ClaudeCodeInstall {
  let packageDirectory: string;
  let version: string;
  try {
    const require = createRequire(import.meta.url);
    const manifestPath = require.resolve('@anthropic-ai/claude-code/package.json');
    packageDirectory = dirname(manifestPath);
    version = (require(manifestPath) as { version: string }).version;
  } catch {
    return { missing: '@anthropic-ai/claude-code is not installed (run `npm ci`).' };
  }
  const binary = join(packageDirectory, 'bin', 'claude.exe');
  const size = statSync(binary, { throwIfNoEntry: false })?.size ?? 0;
  if (size <= PLACEHOLDER_MAX_BYTES) {
    return {
      missing:
        `@anthropic-ai/claude-code ${version} is installed without its native binary (install scripts skipped, or ` +
        'optional dependencies omitted): run `node node_modules/@anthropic-ai/claude-code/install.cjs`.',
    };
  }
  return { binary, version };
}

/** `claude -p <prompt> …args` with ANTHROPIC_BASE_URL at `baseUrl`; killed after `timeoutMs`. */
export async function runClaudeCode(
  binary: string,
  options: { baseUrl: string; prompt: string; args?: string[]; timeoutMs: number },
): Promise<ClaudeCodeRun> {
  const home = mkdtempSync(join(tmpdir(), 'switchyard-claude-code-'));
  const workDirectory = join(home, 'work');
  mkdirSync(workDirectory);
  const tripwire = await startTripwireProxy();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    TMPDIR: home,
    ANTHROPIC_BASE_URL: options.baseUrl,
    ANTHROPIC_API_KEY: CLAUDE_CODE_API_KEY,
    ...OFFLINE_ENV,
    HTTPS_PROXY: tripwire.url,
    HTTP_PROXY: tripwire.url,
    NO_PROXY: '127.0.0.1,localhost',
  };
  const startedAt = Date.now();
  try {
    const ended = await new Promise<Omit<ClaudeCodeRun, 'outsideConnections'>>((resolve, reject) => {
      // Its own process group, so that ending it ends whatever it started too.
      const child = spawn(binary, ['-p', options.prompt, ...(options.args ?? [])], {
        cwd: workDirectory,
        env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
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
    rmSync(home, { recursive: true, force: true });
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
