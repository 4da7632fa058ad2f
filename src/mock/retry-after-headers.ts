import type { ErrorFaults } from './wire.js';

/** `retry-after` / `retry-after-ms` as `retry_after` / `retry_after_ms` ask, for formats that use headers. */
export function retryAfterHeaders(faults: ErrorFaults): Record<string, string> {
  const headers: Record<string, string> = {};
  if (faults.retryAfterS !== undefined) headers['retry-after'] = faults.retryAfterS;
  if (faults.retryAfterMs !== undefined) headers['retry-after-ms'] = String(faults.retryAfterMs);
  return headers;
}
