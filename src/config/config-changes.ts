import { isRecord } from './is-record.js';
import { knownSecrets } from './known-secrets.js';
import type { Config } from './schema.js';

/** What a secret-bearing value is shown as: its path says it changed, never what it holds. */
export const SECRET_VALUE = '(secret)';

/**
 * What a reload changed, one entry per leaf of the config (`routes.support.targets[0].model`):
 * `before` holds the changed and removed paths with their old values, `after` the changed and
 * added ones with their new values. A value that is or holds a secret is `SECRET_VALUE` on both
 * sides.
 */
export interface ConfigChanges {
  before: Record<string, unknown>;
  after: Record<string, unknown>;
}

/** Names of settings whose values are secrets whatever they hold (a webhook URL is its own credential). */
const SECRET_NAME = /(token|secret|password|api_key|webhook_url)$/i;

/** The leaves that differ between two snapshots; undefined when none does (a file saved unchanged). */
export function configChanges(previous: Config, next: Config): ConfigChanges | undefined {
  const secrets = new Set([...knownSecrets(previous), ...knownSecrets(next)]);
  const shown = (path: string, value: unknown) => (secretBearing(path, value, secrets) ? SECRET_VALUE : value);
  const old = leaves(previous);
  const now = leaves(next);
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  for (const [path, value] of old) {
    if (now.has(path) && Object.is(now.get(path), value)) continue;
    before[path] = shown(path, value);
  }
  for (const [path, value] of now) {
    if (old.has(path) && Object.is(old.get(path), value)) continue;
    after[path] = shown(path, value);
  }
  if (Object.keys(before).length === 0 && Object.keys(after).length === 0) return undefined;
  return { before, after };
}

/** Every scalar in the config by its path; unset optional settings are not leaves. */
function leaves(config: Config): Map<string, unknown> {
  const found = new Map<string, unknown>();
  const walk = (value: unknown, path: string) => {
    if (value === undefined) return;
    if (Array.isArray(value)) value.forEach((item, index) => walk(item, `${path}[${index}]`));
    else if (isRecord(value)) for (const [key, item] of Object.entries(value)) walk(item, path === '' ? pathKey(key) : `${path}${pathKey(key, true)}`);
    else found.set(path, value);
  };
  walk(config, '');
  return found;
}

/** `name` as a path step: dotted when it is a plain name, quoted when it is not (a route named `gpt-4.1`). */
function pathKey(key: string, nested = false): string {
  if (/^[A-Za-z0-9_-]+$/.test(key)) return nested ? `.${key}` : key;
  return `[${JSON.stringify(key)}]`;
}

function secretBearing(path: string, value: unknown, secrets: ReadonlySet<string>): boolean {
  const name = /([A-Za-z0-9_-]+)(?:\[\d+\])*$/.exec(path)?.[1] ?? '';
  if (SECRET_NAME.test(name)) return true;
  if (typeof value !== 'string') return false;
  for (const secret of secrets) if (value.includes(secret)) return true;
  return urlWithPassword(value);
}

/** A URL carrying a password (a PostgreSQL or Redis URL), whatever setting holds it. */
function urlWithPassword(value: string): boolean {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return false;
  try {
    return new URL(value).password !== '';
  } catch {
    return false;
  }
}
