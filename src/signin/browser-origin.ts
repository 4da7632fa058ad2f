import type { IncomingMessage } from 'node:http';

/** A Host header as browsers send it: a name or address, maybe bracketed IPv6, maybe a port. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?$/;

/**
 * Whether the browser reached the gateway over https: on a TLS socket, or through a proxy that
 * ended TLS and says so in `X-Forwarded-Proto` (its first value, the browser's side).
 */
export function cameOverHttps(request: IncomingMessage): boolean {
  if ('encrypted' in request.socket && request.socket.encrypted === true) return true;
  const forwarded = request.headers['x-forwarded-proto'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',', 1)[0]?.trim().toLowerCase();
  return first === 'https';
}

/**
 * `scheme://host` as the browser addressed the gateway, for the callback URL the identity provider
 * sends it back to; undefined for a missing or malformed Host. A forged Host only yields a
 * callback URL the identity provider has not registered, which it refuses.
 */
export function browserOrigin(request: IncomingMessage): string | undefined {
  const host = request.headers.host;
  if (host === undefined || !HOST.test(host)) return undefined;
  return `${cameOverHttps(request) ? 'https' : 'http'}://${host}`;
}
