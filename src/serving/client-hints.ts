import type { IncomingHttpHeaders } from 'node:http';

/** What the official SDKs say of themselves in `x-stainless-*` headers, as far as the gateway reads it. */
export interface ClientHints {
  /** `x-stainless-timeout` (seconds): how long the SDK waits for this answer. */
  timeoutMs: number | undefined;
  /** `x-stainless-retry-count`: how many times the SDK has already sent this request. */
  retryCount: number | undefined;
}

/**
 * The hints a caller's SDK sends. The caller did not write them, so a value the gateway cannot
 * read (the Python SDKs send `x-stainless-timeout: NOT_GIVEN` on streams) is handed to
 * `unreadable` and ignored, never refused, unlike the gateway's own headers (`engine/deadline.ts`).
 * Other `x-stainless-*` headers are not read at all.
 */
export function clientHints(headers: IncomingHttpHeaders, unreadable: (header: string, value: string) => void): ClientHints {
  const hint = (header: string, isReadable: (value: number) => boolean): number | undefined => {
    const raw = headers[header];
    if (raw === undefined) return undefined;
    const text = Array.isArray(raw) ? raw.join(', ') : raw;
    // `Number('')` is 0, which is no reading of an empty header.
    const value = text.trim() === '' ? Number.NaN : Number(text);
    if (Number.isFinite(value) && isReadable(value)) return value;
    unreadable(header, text);
    return undefined;
  };
  const timeoutSeconds = hint('x-stainless-timeout', (seconds) => seconds > 0);
  return {
    timeoutMs: timeoutSeconds === undefined ? undefined : timeoutSeconds * 1000,
    retryCount: hint('x-stainless-retry-count', (count) => Number.isInteger(count) && count >= 0),
  };
}
