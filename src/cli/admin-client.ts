import { DEFAULT_ADMIN_TOKEN_FILE, readAdminTokenFile } from './admin-token-file.js';

/** How long a CLI command waits for the gateway's admin API. */
const ADMIN_REQUEST_TIMEOUT_MS = 10_000;

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
function describeFetchError(error: unknown, timeoutMs = ADMIN_REQUEST_TIMEOUT_MS): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError') return `no answer within ${timeoutMs / 1000} s`;
  // fetch reports every network failure as "fetch failed"; the cause says which one.
  const cause = error.cause;
  if (!(cause instanceof Error)) return error.message;
  const code = (cause as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') return 'connection refused (is `switchyard serve` running, and is --url right?)';
  return code === undefined ? cause.message : `${cause.message} (${code})`;
}

export interface AdminClientOptions {
  url: string;
  /**
   * Falls back to SWITCHYARD_ADMIN_TOKEN, then to the token file; read here rather than as a
   * commander default so `--help` never prints it.
   */
  token?: string;
}

/** The token an admin command sends: --token, else $SWITCHYARD_ADMIN_TOKEN, else the file a local `serve` wrote. */
function adminTokenFor(options: AdminClientOptions): string | undefined {
  return options.token || process.env.SWITCHYARD_ADMIN_TOKEN || readAdminTokenFile(DEFAULT_ADMIN_TOKEN_FILE);
}

export type AdminAnswer = { ok: true; status: number; text: string } | { ok: false; error: string };

/**
 * One admin API call; a refused token or an unreachable gateway comes back as a sentence to print.
 * `timeoutMs`: for a call that does its work before it answers (a drill).
 */
export async function callAdmin(
  method: string,
  path: string,
  options: AdminClientOptions,
  body?: unknown,
  timeoutMs = ADMIN_REQUEST_TIMEOUT_MS,
): Promise<AdminAnswer> {
  const token = adminTokenFor(options);
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`${options.url.replace(/\/+$/, '')}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    return { ok: false, error: `cannot reach the gateway at ${options.url}: ${describeFetchError(error, timeoutMs)}` };
  }
  const text = await response.text();
  if (response.status === 401) {
    return {
      ok: false,
      error:
        `the gateway refused the admin token (401: ${errorMessage(text)}); pass --token or set SWITCHYARD_ADMIN_TOKEN to the config's admin.token` +
        ` (with neither, the token is read from ${DEFAULT_ADMIN_TOKEN_FILE}, which \`switchyard serve\` writes for a config with admin.token_file)`,
    };
  }
  return { ok: true, status: response.status, text };
}
