/** Known secrets shorter than this are not replaced: they would match ordinary words. */
const MIN_SECRET_LENGTH = 8;

const REDACTED = '[redacted]';

/**
 * Key shapes redacted even when the gateway does not know the key: a provider's error message
 * can echo a key the caller sent, or another tenant's.
 */
const KEY_SHAPES: readonly RegExp[] = [
  // OpenAI (`sk-…`, `sk-proj-…`), Anthropic (`sk-ant-…`) and Switchyard virtual keys (`sk-sy-…`).
  /\bsk-[A-Za-z0-9_-]{8,}/g,
  // Google API keys.
  /\bAIza[A-Za-z0-9_-]{30,}/g,
  // AWS access key ids: long-term (AKIA) and temporary (ASIA).
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g,
];

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
    redact = (text) => {
      let redacted = known ? text.replace(known, REDACTED) : text;
      for (const shape of KEY_SHAPES) redacted = redacted.replace(shape, REDACTED);
      return redacted.replace(BEARER_TOKEN, `$1 ${REDACTED}`);
    };
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
