import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runOffline, type OfflineRun } from './offline-cli.js';

/**
 * Runs the real Claude Code CLI (the `@anthropic-ai/claude-code` dev dependency) in print mode
 * against a gateway, offline (see `runOffline`): a fresh HOME and working directory in a temp dir
 * (so it reads no user or project settings and no CLAUDE.md), and every connection but the API
 * calls turned off.
 */

/** Where the CLI is, or why it cannot be run here. */
export type ClaudeCodeInstall = { binary: string; version: string } | { missing: string };

export type ClaudeCodeRun = OfflineRun;

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

/**
 * `claude -p <prompt> …args` with ANTHROPIC_BASE_URL at `baseUrl`; killed after `timeoutMs`. With
 * `home` (a directory the caller made and removes), the run keeps its sessions there for a later
 * run to resume (`--session-id`, then `--resume`).
 */
export async function runClaudeCode(
  binary: string,
  options: { baseUrl: string; prompt: string; args?: string[]; timeoutMs: number; home?: string },
): Promise<ClaudeCodeRun> {
  const home = options.home ?? mkdtempSync(join(tmpdir(), 'switchyard-claude-code-'));
  const workDirectory = join(home, 'work');
  mkdirSync(workDirectory, { recursive: true });
  try {
    return await runOffline({
      command: binary,
      args: ['-p', options.prompt, ...(options.args ?? [])],
      cwd: workDirectory,
      env: { PATH: process.env.PATH, HOME: home, TMPDIR: home, ANTHROPIC_BASE_URL: options.baseUrl, ANTHROPIC_API_KEY: CLAUDE_CODE_API_KEY, ...OFFLINE_ENV },
      timeoutMs: options.timeoutMs,
    });
  } finally {
    if (options.home === undefined) rmSync(home, { recursive: true, force: true });
  }
}
