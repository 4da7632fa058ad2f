import type { IncomingMessage, ServerResponse } from 'node:http';
import { csrfRefusal } from '../access/admin-access.js';
import { cameOverHttps } from './browser-origin.js';
import { carriesSessionCsrfToken, closeSessionCookies, sessionOf } from './sign-in-session.js';
import type { SignInDeps } from './sign-in-deps.js';

/**
 * `POST /ui/logout`: ends the session in this browser (both cookies cleared), not at the identity
 * provider, whose session is the company's single sign-on for other applications too. With a
 * live session the request must carry its CSRF token, so that no other site signs the person out.
 */
export function handleSignOut(request: IncomingMessage, response: ServerResponse, deps: Pick<SignInDeps, 'config' | 'nowMs'>): void {
  const oidc = deps.config().admin.oidc;
  const session = oidc && sessionOf(request, oidc.client_secret, deps.nowMs());
  if (session && !carriesSessionCsrfToken(request, session)) throw csrfRefusal();
  response.writeHead(204, { 'set-cookie': closeSessionCookies(cameOverHttps(request)), 'cache-control': 'no-store' });
  response.end();
}
