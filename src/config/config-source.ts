import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { Config } from './schema.js';
import { ConfigError, type ConfigIssue } from './config-issue.js';
import { parseConfig, type FileCheck } from './parse-config.js';

/** The symlink a Kubernetes ConfigMap (or Secret) volume swaps atomically on every update. */
const KUBERNETES_DATA_LINK = '..data';

export type ConfigSourceListener =
  | { event: 'reloaded'; config: Config; notes: readonly string[] }
  | { event: 'rejected'; issues: readonly ConfigIssue[] };

/**
 * The current config snapshot of one file. A reload that fails validation is rejected and the
 * snapshot in force stays; callers read `current` per request, so a reload never tears a request.
 */
export class ConfigSource {
  readonly file: string;
  #current: Config;
  #notes: readonly string[];
  #watcher: FSWatcher | undefined;
  #debounce: NodeJS.Timeout | undefined;
  readonly #env: NodeJS.ProcessEnv;
  readonly #fileChecks: readonly FileCheck[];
  #mintedAdminToken: string | undefined;
  readonly #listeners: ((change: ConfigSourceListener) => void)[] = [];
  readonly #checks: ((config: Config) => ConfigIssue[])[] = [];
  readonly #onSighup = () => this.reload();

  private constructor(file: string, config: Config, notes: readonly string[], env: NodeJS.ProcessEnv, fileChecks: readonly FileCheck[]) {
    this.file = file;
    this.#current = config;
    this.#notes = notes;
    this.#env = env;
    this.#fileChecks = fileChecks;
  }

  /**
   * Throws `ConfigError` listing every issue when the file is invalid. `fileChecks` check the
   * files it names, at this load and at every reload.
   */
  static load(file: string, options: { env?: NodeJS.ProcessEnv; fileChecks?: readonly FileCheck[] } = {}): ConfigSource {
    const env = options.env ?? process.env;
    const fileChecks = options.fileChecks ?? [];
    const path = resolve(file);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new ConfigError(file, [{ path: '(file)', message: `cannot read: ${(error as Error).message}` }]);
    }
    const parsed = parseConfig(text, env, { file: path, fileChecks });
    if (!parsed.config) throw new ConfigError(file, parsed.issues);
    return new ConfigSource(path, parsed.config, parsed.notes, env, fileChecks);
  }

  get current(): Config {
    return this.#current;
  }

  get notes(): readonly string[] {
    return this.#notes;
  }

  /**
   * The admin token `serve` minted for a config that sets `admin.token_file` and no token: it
   * stands in for `admin.token` in this snapshot and in every reloaded one that still opts in.
   */
  useMintedAdminToken(token: string): void {
    this.#mintedAdminToken = token;
    this.#current = this.#withMintedAdminToken(this.#current);
  }

  #withMintedAdminToken(config: Config): Config {
    if (this.#mintedAdminToken === undefined || config.admin.token !== undefined || config.admin.token_file === undefined) return config;
    return Object.freeze({ ...config, admin: Object.freeze({ ...config.admin, token: this.#mintedAdminToken }) });
  }

  /** A rule a reloaded config must also pass (one that depends on the running process). */
  addCheck(check: (config: Config) => ConfigIssue[]): void {
    this.#checks.push(check);
  }

  /** Called after every reload attempt, accepted or rejected. */
  subscribe(listener: (change: ConfigSourceListener) => void): void {
    this.#listeners.push(listener);
  }

  /** Re-reads the file; returns the issues when it was rejected (the old config stays). */
  reload(): readonly ConfigIssue[] {
    let parsed;
    try {
      parsed = parseConfig(readFileSync(this.file, 'utf8'), this.#env, { file: this.file, fileChecks: this.#fileChecks });
    } catch (error) {
      parsed = { issues: [{ path: '(file)', message: (error as Error).message }], notes: [] };
    }
    const config = parsed.config && this.#withMintedAdminToken(parsed.config);
    const issues = config ? this.#checks.flatMap((check) => check(config)) : parsed.issues;
    if (!config || issues.length > 0) {
      for (const listener of this.#listeners) listener({ event: 'rejected', issues });
      return issues;
    }
    this.#current = config;
    this.#notes = parsed.notes;
    for (const listener of this.#listeners) listener({ event: 'reloaded', config, notes: parsed.notes });
    return [];
  }

  /**
   * Reloads on SIGHUP and whenever the file changes: editors that replace the file included, and
   * a Kubernetes ConfigMap volume, where the file is a symlink through `..data` and an update
   * swaps `..data` to a new directory (the file's own name sees no event then).
   */
  watch(): void {
    if (this.#watcher) return;
    process.on('SIGHUP', this.#onSighup);
    const name = basename(this.file);
    this.#watcher = watch(dirname(this.file), (_event, changed) => {
      if (changed !== null && changed !== name && changed !== KUBERNETES_DATA_LINK) return;
      clearTimeout(this.#debounce);
      this.#debounce = setTimeout(() => this.reload(), 50);
    });
  }

  close(): void {
    process.off('SIGHUP', this.#onSighup);
    clearTimeout(this.#debounce);
    this.#watcher?.close();
    this.#watcher = undefined;
  }
}

