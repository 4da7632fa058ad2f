import type { IncomingMessage } from 'node:http';

/** A cookie's value in the request's `Cookie` header, or undefined; a malformed header is a missing cookie. */
export function readCookie(request: IncomingMessage, name: string): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  for (const pair of header.split(';')) {
    const separator = pair.indexOf('=');
    if (separator === -1 || pair.slice(0, separator).trim() !== name) continue;
    return pair.slice(separator + 1).trim();
  }
  return undefined;
}

export interface CookieOptions {
  path: string;
  /** Seconds the browser keeps it; 0 clears it. */
  maxAgeS: number;
  /** Not readable by the page's scripts. */
  httpOnly: boolean;
  /** Sent over https only. */
  secure: boolean;
}

/**
 * A `Set-Cookie` value. SameSite=Lax always: the cookie goes with the identity provider's redirect
 * back (a top-level GET) but with no request another site's page makes in the background.
 * Values are the gateway's own (base64url and dots), never a caller's text.
 */
export function setCookie(name: string, value: string, options: CookieOptions): string {
  const attributes = [`${name}=${value}`, `Path=${options.path}`, `Max-Age=${options.maxAgeS}`, 'SameSite=Lax'];
  if (options.httpOnly) attributes.push('HttpOnly');
  if (options.secure) attributes.push('Secure');
  return attributes.join('; ');
}
