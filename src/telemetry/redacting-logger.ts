import { symbols, type Logger } from 'pino';
import type { Redact } from '../records/redact-secrets.js';

interface Hooks {
  streamWrite?: (line: string) => string;
}

/**
 * A child of `logger` whose every line passes `redact()` as it is written: whatever a log call
 * holds — a message, an error's message and stack, nested objects — a secret never reaches the
 * log. The line is redacted whole after serialising, so no field can be missed. pino lets only a
 * root logger set its `streamWrite` hook, so the child gets its own through pino's published
 * symbols; the hook the root may already have still runs first.
 */
export function redactingLogger(logger: Logger, redact: () => Redact): Logger {
  const child = logger.child({});
  const slots = child as unknown as Record<symbol, Hooks | undefined>;
  const inherited = slots[symbols.hooksSym] ?? {};
  slots[symbols.hooksSym] = {
    ...inherited,
    streamWrite: (line) => redact()(inherited.streamWrite ? inherited.streamWrite(line) : line),
  };
  return child;
}
