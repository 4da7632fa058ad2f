/** What a key-shaped run of text becomes wherever the gateway writes it. */
export const REDACTED = '[redacted]';

/**
 * The shapes of credentials redacted even when the gateway does not know them: a provider's error
 * message can echo a key the caller sent, or another tenant's, and a caller can paste a key into
 * `model`. Each starts with a fixed marker, which `mayHoldKey` tests before any pattern runs.
 */
const KEY_SHAPES: readonly RegExp[] = [
  // OpenAI (`sk-…`, `sk-proj-…`, `sk-svcacct-…`), Anthropic (`sk-ant-…`) and Switchyard virtual keys (`sk-sy-…`).
  /\bsk-[A-Za-z0-9_-]{8,}/g,
  // Google API keys.
  /\bAIza[A-Za-z0-9_-]{30,}/g,
  // AWS access key ids: long-term (AKIA) and temporary (ASIA).
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g,
];

/**
 * A few substring tests, so that ordinary text (a model name on every request) costs no pattern
 * at all: nothing without one of these markers can match `KEY_SHAPES`.
 */
function mayHoldKey(text: string): boolean {
  return text.includes('sk-') || text.includes('AIza') || text.includes('AKIA') || text.includes('ASIA');
}

/** `text` with every run shaped like a provider's key (or a Switchyard key) replaced by `[redacted]`. */
export function redactKeyShapes(text: string): string {
  if (!mayHoldKey(text)) return text;
  let redacted = text;
  for (const shape of KEY_SHAPES) redacted = redacted.replace(shape, REDACTED);
  return redacted;
}
