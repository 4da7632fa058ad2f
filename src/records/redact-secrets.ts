import { REDACTED, redactKeyShapes } from '../core/redact-key-shapes.js';

/** Known secrets shorter than this are not replaced: they would match ordinary words. */
const MIN_SECRET_LENGTH = 8;

/** The scheme word is kept so the message still says what kind of credential was there. */
const BEARER_TOKEN = /\b(Bearer)\s+[A-Za-z0-9._~+/=-]+/gi;

export type Redact = (text: string) => string;

const byKnownSecrets = new WeakMap<ReadonlySet<string>, Redact>();

/**
 * The one redaction every string leaving the gateway passes (error bodies, stream error frames,
 * headers, logs, records): every known secret and every common key shape becomes `[redacted]`.
 * Made once per set of secrets (a config snapshot has one), so the known secrets are matched by
 * a single pattern rather than one pass each.
 */
export function secretRedactor(knownSecrets: ReadonlySet<string>): Redact {
  let redact = byKnownSecrets.get(knownSecrets);
  if (!redact) {
    // Longest first, so a secret that contains another is replaced whole.
    const secrets = [...knownSecrets].filter((secret) => secret.length >= MIN_SECRET_LENGTH).sort((left, right) => right.length - left.length);
    const known = secrets.length === 0 ? undefined : new RegExp(secrets.map(escapeRegExp).join('|'), 'g');
    redact = (text) => redactKeyShapes(known ? text.replace(known, REDACTED) : text).replace(BEARER_TOKEN, `$1 ${REDACTED}`);
    byKnownSecrets.set(knownSecrets, redact);
  }
  return redact;
}

/** Replaces every known secret and every common key shape in `text` with `[redacted]`. */
export function redactSecrets(text: string, knownSecrets: ReadonlySet<string>): string {
  return secretRedactor(knownSecrets)(text);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
