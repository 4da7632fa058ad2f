/**
 * Signing in through the gateway and the test identity provider with plain HTTP, as a browser
 * would but without one: redirects followed by hand, cookies kept in a jar. The gateway and the
 * identity provider both run on 127.0.0.1, and a browser shares cookies across a host's ports: so
 * does the jar, by name alone.
 */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 10;

export class CookieJar {
  readonly #cookies = new Map<string, string>();
  /** The `Set-Cookie` values the jar has been given, as sent. */
  readonly received: string[] = [];

  get(name: string): string | undefined {
    return this.#cookies.get(name);
  }

  set(name: string, value: string): void {
    this.#cookies.set(name, value);
  }

  header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  take(response: Response): void {
    for (const cookie of response.headers.getSetCookie()) {
      this.received.push(cookie);
      const [pair = ''] = cookie.split(';', 1);
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator).trim();
      if (/;\s*max-age=0\b/i.test(cookie) || /;\s*expires=Thu, 01 Jan 1970/i.test(cookie)) this.#cookies.delete(name);
      else this.#cookies.set(name, pair.slice(separator + 1).trim());
    }
  }
}

/** One request with the jar's cookies, its answer's cookies taken; redirects are not followed. */
export async function send(url: string, jar: CookieJar, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const cookies = jar.header();
  if (cookies !== '') headers.set('cookie', cookies);
  const response = await fetch(url, { ...init, headers, redirect: 'manual', signal: AbortSignal.timeout(10_000) });
  jar.take(response);
  return response;
}

/** Follows redirects from `url` until an answer that is none, or up to a URL `stopBefore` picks (not requested: the caller sends it where it wants). */
export async function follow(url: string, jar: CookieJar, stopBefore: (url: URL) => boolean = () => false): Promise<{ url: URL; response?: Response }> {
  let current = new URL(url);
  for (let hop = 0; hop < MAX_REDIRECTS; hop++) {
    if (stopBefore(current)) return { url: current };
    const response = await send(current.href, jar);
    const location = response.headers.get('location');
    if (!REDIRECTS.has(response.status) || location === null) return { url: current, response };
    await response.body?.cancel();
    current = new URL(location, current);
  }
  throw new Error(`more than ${MAX_REDIRECTS} redirects from ${url}`);
}

export interface HttpSignIn {
  /** The gateway's answer to the identity provider's redirect back. */
  callback: Response;
  /** The callback URL the identity provider sent the browser to, with its code and state. */
  callbackUrl: URL;
}

/**
 * Starts a sign-in at `startUrl` (a gateway's `/ui/login/oidc`), signs in at the identity provider
 * as `login`, and hands the redirect back to `finishAt` (another replica) or where it points,
 * `tamper` having changed it first (a test's forged code).
 */
export async function signInOverHttp(startUrl: string, login: string, jar: CookieJar, options: { finishAt?: string; tamper?: (callback: URL) => void } = {}): Promise<HttpSignIn> {
  const isCallback = (url: URL) => url.pathname === '/ui/login/oidc/callback';
  const { url: formUrl, response: form } = await follow(startUrl, jar);
  const action = form && /action="([^"]+)"/.exec(await form.text())?.[1];
  if (form?.status !== 200 || !action) throw new Error(`no sign-in form at ${formUrl.href} (${form?.status})`);
  const posted = await send(new URL(action, formUrl).href, jar, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ login }).toString(),
  });
  await posted.body?.cancel();
  const { url: callbackUrl } = await follow(new URL(posted.headers.get('location')!, formUrl).href, jar, isCallback);
  if (!isCallback(callbackUrl)) throw new Error(`the identity provider did not send the browser back (ended at ${callbackUrl.href})`);
  const finish = new URL(`${callbackUrl.pathname}${callbackUrl.search}`, options.finishAt ?? callbackUrl);
  options.tamper?.(finish);
  return { callback: await send(finish.href, jar), callbackUrl };
}
