import type { EnvSubstitution } from './interpolate-env.js';

/** Keys whose values are credentials, or URLs that can carry one (`redis://:password@host`). */
const SECRET_KEYS: ReadonlySet<PropertyKey> = new Set([
  'token',
  'client_secret',
  'api_key',
  'aws_access_key_id',
  'aws_secret_access_key',
  'aws_session_token',
  'webhook_url',
  'url',
  // A Redis Cluster's node URLs, which can carry its password.
  'nodes',
  'password',
]);

export type QuotedValue = { shown: true; json: string } | { shown: false; why: string };

/**
 * How an error about the value at `path` may quote it. A value that is a secret, holds one, or
 * came (even in part) from `${env:…}` is described, never shown: the environment is where
 * secrets live, and a mistyped key or a wrong-typed api_key still holds the real secret.
 */
export function quoteValue(value: unknown, path: readonly PropertyKey[], substitutions: readonly EnvSubstitution[]): QuotedValue {
  if (holdsSecret(value, path)) return { shown: false, why: 'a secret' };
  const variables = new Set(substitutions.filter((substitution) => startsWith(substitution.path, path)).flatMap((substitution) => substitution.variables));
  if (variables.size > 0) return { shown: false, why: `it comes from ${[...variables].map((variable) => `\${env:${variable}}`).join(', ')}` };
  return { shown: true, json: JSON.stringify(value) };
}

/** The part of an error message that quotes a value: `(got "x")` or `(not shown: a secret)`. */
export function describeQuoted(quoted: QuotedValue): string {
  return quoted.shown ? `(got ${quoted.json})` : `(not shown: ${quoted.why})`;
}

function holdsSecret(value: unknown, path: readonly PropertyKey[]): boolean {
  if (path.some((segment) => SECRET_KEYS.has(segment))) return true;
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([key, item]) => holdsSecret(item, [key]));
}

function startsWith(path: readonly PropertyKey[], prefix: readonly PropertyKey[]): boolean {
  return prefix.length <= path.length && prefix.every((segment, index) => String(segment) === String(path[index]));
}
