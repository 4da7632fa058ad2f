import { csrfToken, CSRF_HEADER } from './session-cookie.js';

/** An answer of the admin API other than 2xx, with the error body's message and parameter when it had one. */
export class AdminApiError extends Error {
  readonly status: number;
  readonly param: string | null;

  constructor(status: number, message: string, param: string | null) {
    super(message);
    this.status = status;
    this.param = param;
  }
}

/** How the dashboard is signed in: with the admin token (or a scoped admin token), or by the session cookie of a sign-in through the identity provider. */
export type AdminCredentials = { token: string } | { session: true };

/**
 * The dashboard's only way out: `/admin/*` on the gateway that served it, with the admin token,
 * or with the session cookie (the browser sends it) and, on a change, the session's CSRF token.
 * A 401 means the credentials no longer work (a token changed in the config or mistyped, a
 * session ended): `onRefused` signs out.
 */
export class AdminApi {
  readonly #credentials: AdminCredentials;
  readonly #onRefused: (message: string) => void;

  constructor(credentials: AdminCredentials, onRefused: (message: string) => void) {
    this.#credentials = credentials;
    this.#onRefused = onRefused;
  }

  get<T>(path: string): Promise<T> {
    return this.#call<T>('GET', path);
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.#call<T>('POST', path, body);
  }

  patch<T>(path: string, body: unknown): Promise<T> {
    return this.#call<T>('PATCH', path, body);
  }

  delete<T>(path: string): Promise<T> {
    return this.#call<T>('DELETE', path);
  }

  async #call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers = this.#authorization(method);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await response.text();
    const parsed = parseJson(text);
    if (response.ok) return parsed as T;
    const error = errorOf(parsed);
    const failure = new AdminApiError(response.status, error.message ?? `The gateway answered ${response.status}.`, error.param ?? null);
    if (response.status === 401) this.#onRefused(failure.message);
    throw failure;
  }

  #authorization(method: string): Record<string, string> {
    if ('token' in this.#credentials) return { authorization: `Bearer ${this.#credentials.token}` };
    const csrf = csrfToken();
    return method === 'GET' || csrf === undefined ? {} : { [CSRF_HEADER]: csrf };
  }
}

/** Asks the gateway whether a token is its admin token: the sign-in check. */
export async function tokenIsAccepted(token: string): Promise<boolean> {
  const response = await fetch('/admin/health', { headers: { authorization: `Bearer ${token}` } });
  await response.body?.cancel();
  if (response.status === 401) return false;
  if (!response.ok) throw new AdminApiError(response.status, `The gateway answered ${response.status}.`, null);
  return true;
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? null : JSON.parse(text);
  } catch {
    return null;
  }
}

function errorOf(body: unknown): { message?: string; param?: string } {
  if (typeof body !== 'object' || body === null) return {};
  const error = (body as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return {};
  const { message, param } = error as { message?: unknown; param?: unknown };
  return { ...(typeof message === 'string' ? { message } : {}), ...(typeof param === 'string' ? { param } : {}) };
}
