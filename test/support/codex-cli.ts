import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runOffline, type OfflineRun } from './offline-cli.js';

/**
 * Runs OpenAI's Codex CLI (the `@openai/codex` dev dependency) as `codex exec` against a gateway,
 * offline (see `runOffline`): a fresh HOME and CODEX_HOME in a temp dir whose `config.toml` has
 * one `model_providers` entry, the gateway, on the Responses API; no user config is read.
 */

/** Where the CLI is, or why it cannot be run here. */
export type CodexInstall = { launcher: string; version: string } | { missing: string };

/** What Codex is given as its API key; the gateway must never pass it on. */
export const CODEX_API_KEY = 'sk-switchyard-codex-test-not-a-key';

export function locateCodex(): CodexInstall {
  let launcher: string;
  try {
    const require = createRequire(import.meta.url);
    launcher = join(dirname(require.resolve('@openai/codex/package.json')), 'bin', 'codex.js');
  } catch {
    return { missing: '@openai/codex is not installed (run `npm ci`).' };
  }
  // The launcher runs the native binary of this platform, an optional dependency npm may have left out.
  const probe = spawnSync(process.execPath, [launcher, '--version'], { encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH } });
  const version = /codex-cli (\S+)/.exec(probe.stdout ?? '')?.[1];
  if (probe.status !== 0 || version === undefined) {
    return { missing: `@openai/codex cannot run on this platform (${process.platform}-${process.arch}): ${(probe.stderr || String(probe.error ?? '')).trim().slice(0, 300)}` };
  }
  return { launcher, version };
}

/**
 * The `config.toml` that points Codex at the gateway, as the docs show it, plus what keeps it
 * offline: no update check, no analytics, and no plugins (whose catalogs it would fetch from
 * GitHub and ChatGPT at startup). With a model: a `model_providers` entry on the Responses API
 * (with `websocket`, one that uses the Responses WebSocket and retries a broken stream once);
 * without: only `openai_base_url`, the built-in provider keeping its own default model (and its
 * preference for the WebSocket).
 */
export function codexConfig(baseUrl: string, model?: string, websocket = false): string {
  const provider =
    model === undefined
      ? [`openai_base_url = "${baseUrl}/v1"`]
      : [`model = "${model}"`, 'model_provider = "switchyard"'];
  const providerEntry =
    model === undefined
      ? []
      : [
          '[model_providers.switchyard]',
          'name = "Switchyard"',
          `base_url = "${baseUrl}/v1"`,
          'wire_api = "responses"',
          'env_key = "SWITCHYARD_API_KEY"',
          ...(websocket ? ['supports_websockets = true', 'stream_max_retries = 1'] : []),
          '',
        ];
  return [
    ...provider,
    'check_for_update_on_startup = false',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[features]',
    'plugins = false',
    '',
    ...providerEntry,
  ].join('\n');
}

/**
 * `codex exec <prompt>` with the gateway at `baseUrl` serving `model` (or Codex's default); killed
 * after `timeoutMs`. With `home` (a directory the caller made and removes), the run keeps its
 * sessions there, and `resumeLast` goes on with the latest of them (`codex exec resume --last`).
 */
export async function runCodex(
  launcher: string,
  options: { baseUrl: string; model?: string; prompt: string; timeoutMs: number; home?: string; resumeLast?: boolean; websocket?: boolean },
): Promise<OfflineRun> {
  const home = options.home ?? mkdtempSync(join(tmpdir(), 'switchyard-codex-'));
  const codexHome = join(home, 'codex');
  const workDirectory = join(home, 'work');
  mkdirSync(codexHome, { recursive: true });
  mkdirSync(workDirectory, { recursive: true });
  writeFileSync(join(codexHome, 'config.toml'), codexConfig(options.baseUrl, options.model, options.websocket));
  try {
    return await runOffline({
      command: process.execPath,
      args: [launcher, 'exec', '--skip-git-repo-check', '--sandbox', 'read-only', ...(options.resumeLast ? ['resume', '--last'] : []), options.prompt],
      cwd: workDirectory,
      env: { PATH: process.env.PATH, HOME: home, TMPDIR: home, CODEX_HOME: codexHome, SWITCHYARD_API_KEY: CODEX_API_KEY, OPENAI_API_KEY: CODEX_API_KEY },
      timeoutMs: options.timeoutMs,
    });
  } finally {
    if (options.home === undefined) rmSync(home, { recursive: true, force: true });
  }
}
