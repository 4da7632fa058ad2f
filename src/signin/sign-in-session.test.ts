import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { closeSessionCookies, openSessionCookies, sessionOf, carriesSessionCsrfToken, SESSION_LIFETIME_S, type SignedInPerson } from './sign-in-session.js';

const SECRET = 'the-identity-provider-client-secret';
const NOW = Date.parse('2026-03-01T09:00:00Z');
const PERSON: SignedInPerson = { sub: 'u-42', name: 'Ana Lima', global: null, grants: [{ team: 'team_pay', role: 'team_admin' }] };

/** A request carrying the cookies (name=value pairs of `Set-Cookie` values) and headers given. */
function requestWith(setCookies: readonly string[], headers: Record<string, string> = {}): IncomingMessage {
  const cookie = setCookies.map((value) => value.split(';', 1)[0]).join('; ');
  return { headers: { cookie, ...headers } } as unknown as IncomingMessage;
}

function cookieValue(setCookies: readonly string[], name: string): string {
  return setCookies.find((value) => value.startsWith(`${name}=`))!.split(';', 1)[0]!.slice(name.length + 1);
}

describe('the session cookie', () => {
  const cookies = openSessionCookies(PERSON, SECRET, { nowMs: NOW, secure: false });

  it('is HttpOnly and SameSite=Lax for the whole gateway for 8 hours, Secure on https; the CSRF cookie is readable by the page', () => {
    expect(cookies[0]).toMatch(/^switchyard_session=[\w-]+\.[\w-]+; Path=\/; Max-Age=28800; SameSite=Lax; HttpOnly$/);
    expect(cookies[1]).toMatch(/^switchyard_csrf=[\w-]{32}; Path=\/; Max-Age=28800; SameSite=Lax$/);
    const overHttps = openSessionCookies(PERSON, SECRET, { nowMs: NOW, secure: true });
    expect(overHttps.every((cookie) => cookie.endsWith('; Secure'))).toBe(true);
    expect(closeSessionCookies(false)).toEqual(['switchyard_session=; Path=/; Max-Age=0; SameSite=Lax; HttpOnly', 'switchyard_csrf=; Path=/; Max-Age=0; SameSite=Lax']);
  });

  it('stands for the person, with the strongest role held, until it expires', () => {
    const session = sessionOf(requestWith(cookies), SECRET, NOW + 1_000);
    expect(session?.actor).toEqual({ kind: 'user', id: 'u-42', name: 'Ana Lima', role: 'team_admin', global: null, grants: PERSON.grants });
    expect(sessionOf(requestWith(cookies), SECRET, NOW + SESSION_LIFETIME_S * 1000 - 1)).toBeDefined();
    expect(sessionOf(requestWith(cookies), SECRET, NOW + SESSION_LIFETIME_S * 1000)).toBeUndefined();
  });

  it('stands for nobody once tampered with, signed with another secret, or missing', () => {
    const value = cookieValue(cookies, 'switchyard_session');
    const [payload, signature] = value.split('.') as [string, string];
    const promoted = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), global: 'admin' })).toString('base64url');
    const forged = [`switchyard_session=${promoted}.${signature}`];
    expect(sessionOf(requestWith(forged), SECRET, NOW)).toBeUndefined();
    const flipped = [`switchyard_session=${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`];
    expect(sessionOf(requestWith(flipped), SECRET, NOW)).toBeUndefined();
    expect(sessionOf(requestWith(cookies), 'another-client-secret', NOW)).toBeUndefined();
    expect(sessionOf(requestWith([`switchyard_session=${payload}`]), SECRET, NOW)).toBeUndefined();
    expect(sessionOf(requestWith(['switchyard_session=not a cookie']), SECRET, NOW)).toBeUndefined();
    expect(sessionOf(requestWith([]), SECRET, NOW)).toBeUndefined();
  });

  it("takes a write's x-csrf-token only when it is the session's own token", () => {
    const session = sessionOf(requestWith(cookies), SECRET, NOW)!;
    const token = cookieValue(cookies, 'switchyard_csrf');
    expect(carriesSessionCsrfToken(requestWith(cookies, { 'x-csrf-token': token }), session)).toBe(true);
    expect(carriesSessionCsrfToken(requestWith(cookies), session)).toBe(false);
    expect(carriesSessionCsrfToken(requestWith(cookies, { 'x-csrf-token': `${token}x` }), session)).toBe(false);
    // Another session's token (a cookie set by another subdomain, say) is not this one's.
    const other = openSessionCookies(PERSON, SECRET, { nowMs: NOW, secure: false });
    expect(carriesSessionCsrfToken(requestWith(cookies, { 'x-csrf-token': cookieValue(other, 'switchyard_csrf') }), session)).toBe(false);
  });
});
