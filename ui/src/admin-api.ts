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

/**
 * The dashboard's only way out: `/admin/*` on the gateway that served it, with the admin token.
 * A 401 means the token no longer works (changed in the config, or mistyped): `onRefused` signs out.
 */
export class AdminApi {
  readonly #token: string;
  readonly #onRefused: (message: string) => void;

  constructor(token: string, onRefused: (message: string) => void) {
    this.#token = token;
    this.#onRefused = onRefused;
  }

  get<T>(path: string): Promise<T> {
    return this.#call<T>('GET', path);
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.#call<T>('POST', path, body);
  }

  delete<T>(path: string): Promise<T> {
    return this.#call<T>('DELETE', path);
  }

  async #call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.#token}` };
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
