import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { strongestRole, type Actor, type TeamGrant } from '../core/actor.js';
import { readCookie, setCookie } from './cookies.js';
import { derivedKey, openSignedValue, signValue } from './signed-value.js';

export const SESSION_COOKIE = 'switchyard_session';
/** Readable by the dashboard's scripts, which echo it in `x-csrf-token` (the double submit): another site's page can read neither. */
export const CSRF_COOKIE = 'switchyard_csrf';
export const CSRF_HEADER = 'x-csrf-token';
/** A session ends this long after the sign-in, whatever is done with it: the roles are those of that moment. */
export const SESSION_LIFETIME_S = 8 * 60 * 60;

/** Who signed in, as the identity provider named them and the role claim mapped them. */
export interface SignedInPerson {
  sub: string;
  name: string;
  global: Actor['global'];
  grants: readonly TeamGrant[];
}

interface SessionPayload extends SignedInPerson {
  /** Epoch milliseconds. */
  exp: number;
  csrf: string;
}

/** A live session: the person, as an actor of the admin API, and the CSRF token their writes must carry. */
export interface Session {
  actor: Actor;
  csrf: string;
}

let cachedKey: { secret: string; key: Buffer } | undefined;

/** Signed with a key derived from the client secret, which every replica has: any replica takes any session. */
function sessionKey(secret: string): Buffer {
  if (cachedKey?.secret !== secret) cachedKey = { secret, key: derivedKey(secret, 'session') };
  return cachedKey.key;
}

/** The `Set-Cookie` values that open a session: the HttpOnly session and the CSRF token the page reads. */
export function openSessionCookies(person: SignedInPerson, secret: string, options: { nowMs: number; secure: boolean }): string[] {
  const payload: SessionPayload = { ...person, exp: options.nowMs + SESSION_LIFETIME_S * 1000, csrf: randomBytes(24).toString('base64url') };
  const cookie = { path: '/', maxAgeS: SESSION_LIFETIME_S, secure: options.secure };
  return [
    setCookie(SESSION_COOKIE, signValue(payload, sessionKey(secret)), { ...cookie, httpOnly: true }),
    setCookie(CSRF_COOKIE, payload.csrf, { ...cookie, httpOnly: false }),
  ];
}

/** The `Set-Cookie` values that end a session in this browser. */
export function closeSessionCookies(secure: boolean): string[] {
  return [
    setCookie(SESSION_COOKIE, '', { path: '/', maxAgeS: 0, httpOnly: true, secure }),
    setCookie(CSRF_COOKIE, '', { path: '/', maxAgeS: 0, httpOnly: false, secure }),
  ];
}

/** The session the request's cookie holds; undefined without one, or with one tampered with, signed with another key, or expired. */
export function sessionOf(request: IncomingMessage, secret: string, nowMs: number): Session | undefined {
  const cookie = readCookie(request, SESSION_COOKIE);
  if (!cookie) return undefined;
  const payload = openSignedValue(cookie, sessionKey(secret));
  if (!isSessionPayload(payload) || payload.exp <= nowMs) return undefined;
  const role = strongestRole(payload.global, payload.grants);
  if (!role) return undefined;
  return { actor: { kind: 'user', id: payload.sub, name: payload.name, role, global: payload.global, grants: payload.grants }, csrf: payload.csrf };
}

/** Whether the request's `x-csrf-token` is its session's token. */
export function carriesSessionCsrfToken(request: IncomingMessage, session: Session): boolean {
  const presented = request.headers[CSRF_HEADER];
  if (typeof presented !== 'string') return false;
  const expected = Buffer.from(session.csrf);
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function isSessionPayload(value: unknown): value is SessionPayload {
  if (typeof value !== 'object' || value === null) return false;
  const payload = value as Partial<SessionPayload>;
  return (
    typeof payload.sub === 'string' &&
    typeof payload.name === 'string' &&
    typeof payload.exp === 'number' &&
    typeof payload.csrf === 'string' &&
    (payload.global === null || payload.global === 'admin' || payload.global === 'auditor') &&
    Array.isArray(payload.grants)
  );
}
