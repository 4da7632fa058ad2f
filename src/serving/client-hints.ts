import type { IncomingHttpHeaders } from 'node:http';

/** What the official SDKs say of themselves in `x-stainless-*` headers, as far as the gateway reads it. */
export interface ClientHints {
  /** `x-stainless-timeout` (seconds): how long the SDK waits for this answer. */
  timeoutMs: number | undefined;
  /** `x-stainless-retry-count`: how many times the SDK has already sent this request. */
  retryCount: number | undefined;
}

const TIMEOUT_HEADER = 'x-stainless-timeout';
const RETRY_COUNT_HEADER = 'x-stainless-retry-count';
const NO_HINTS: ClientHints = Object.freeze({ timeoutMs: undefined, retryCount: undefined });

/**
 * The hints a caller's SDK sends. The caller did not write them, so a value the gateway cannot
 * read (the Python SDKs send `x-stainless-timeout: NOT_GIVEN` on streams) is handed to
 * `unreadable` and ignored, never refused, unlike the gateway's own headers (`engine/deadline.ts`).
 * Other `x-stainless-*` headers are not read at all.
 */
export function clientHints(headers: IncomingHttpHeaders, unreadable: (header: string, value: string) => void): ClientHints {
  const timeoutHeader = headers[TIMEOUT_HEADER];
  const retryCountHeader = headers[RETRY_COUNT_HEADER];
  // Most callers send neither: one shared answer for them.
  if (timeoutHeader === undefined && retryCountHeader === undefined) return NO_HINTS;
  const timeoutSeconds = hint(TIMEOUT_HEADER, timeoutHeader, isTimeout, unreadable);
  return {
    timeoutMs: timeoutSeconds === undefined ? undefined : timeoutSeconds * 1000,
    retryCount: hint(RETRY_COUNT_HEADER, retryCountHeader, isRetryCount, unreadable),
  };
}

function hint(
  header: string,
  raw: string | string[] | undefined,
  isReadable: (value: number) => boolean,
  unreadable: (header: string, value: string) => void,
): number | undefined {
  if (raw === undefined) return undefined;
  const text = Array.isArray(raw) ? raw.join(', ') : raw;
  // `Number('')` is 0, which is no reading of an empty header.
  const value = text.trim() === '' ? Number.NaN : Number(text);
  if (Number.isFinite(value) && isReadable(value)) return value;
  unreadable(header, text);
  return undefined;
}

function isTimeout(seconds: number): boolean {
  return seconds > 0;
}

function isRetryCount(count: number): boolean {
  return Number.isInteger(count) && count >= 0;
}
