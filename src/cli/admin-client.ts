/** How long a CLI command waits for the gateway's admin API. */
export const ADMIN_REQUEST_TIMEOUT_MS = 10_000;

/** The message of an error envelope, or the start of whatever else the gateway answered. */
export function errorMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } };
    if (typeof parsed.error?.message === 'string') return parsed.error.message;
  } catch {
    // Not JSON: show the raw text below.
  }
  return body.slice(0, 200) || '(empty body)';
}

/** What went wrong reaching the gateway, in words a person can act on. */
export function describeFetchError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError') return `no answer within ${ADMIN_REQUEST_TIMEOUT_MS / 1000} s`;
  // fetch reports every network failure as "fetch failed"; the cause says which one.
  const cause = error.cause;
  if (!(cause instanceof Error)) return error.message;
  const code = (cause as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') return 'connection refused (is `switchyard serve` running, and is --url right?)';
  return code === undefined ? cause.message : `${cause.message} (${code})`;
}
