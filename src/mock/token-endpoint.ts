/**
 * `POST /token`: an OAuth 2.0 token endpoint for the JWT-bearer grant a Google service-account key
 * uses (RFC 7523), so a key whose `token_uri` points here gets access tokens the mock's Vertex
 * routes accept. The assertion's signature is not checked (the mock has no public key); its form,
 * `scope` and `aud` are. Directives in the query string act out the endpoint's faults.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isRecord } from './answer.js';
import type { IssuedTokens } from './issued-tokens.js';
import { sendJson } from './mock-http.js';

const jwtBearer = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const cloudPlatformScope = 'https://www.googleapis.com/auth/cloud-platform';
/** What Google's endpoint gives a service account: an hour, less a second. */
const defaultExpiresInS = 3599;
const maxExpiresInS = 86_400;

interface TokenDirectives {
  expiresInS: number;
  refuse: boolean;
  status?: number;
}

class TokenRefusal extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    description: string,
    /** As the grant is recorded: the OAuth error code, or `status <N>` when `status=` asked for it. */
    readonly outcome = error,
  ) {
    super(description);
  }
}

export function serveTokenRequest(request: IncomingMessage, response: ServerResponse, text: string, tokens: IssuedTokens, nowMs: number): void {
  const url = request.url ?? '/token';
  const queryStart = url.indexOf('?');
  const directives = Object.fromEntries(new URLSearchParams(queryStart === -1 ? '' : url.slice(queryStart + 1)));
  let subject: string | undefined;
  try {
    const asked = tokenDirectives(directives);
    if (asked.status !== undefined) {
      const code = asked.status >= 500 ? 'temporarily_unavailable' : 'invalid_request';
      throw new TokenRefusal(asked.status, code, `mock: status=${asked.status} was asked for`, `status ${asked.status}`);
    }
    if (asked.refuse) throw new TokenRefusal(400, 'invalid_grant', 'Invalid JWT Signature.');
    subject = checkedSubject(new URLSearchParams(text), audiences(request, url));
    const { accessToken, token } = tokens.issue(asked.expiresInS, nowMs);
    tokens.record({ atMs: nowMs, outcome: 'issued', subject, token, expiresInS: asked.expiresInS, directives });
    sendJson(response, 200, JSON.stringify({ access_token: accessToken, expires_in: asked.expiresInS, token_type: 'Bearer' }), {});
  } catch (error) {
    if (!(error instanceof TokenRefusal)) throw error;
    tokens.record({ atMs: nowMs, outcome: error.outcome, subject, directives });
    sendJson(response, error.status, JSON.stringify({ error: error.error, error_description: error.message }), {});
  }
}

/** `expires_in=N` (seconds, 0 gives an already expired token), `refuse=invalid_grant`, `status=N`; anything else is a 400. */
function tokenDirectives(raw: Record<string, string>): TokenDirectives {
  const asked: TokenDirectives = { expiresInS: defaultExpiresInS, refuse: false };
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'expires_in') asked.expiresInS = integerDirective(key, value, 0, maxExpiresInS);
    else if (key === 'status') asked.status = integerDirective(key, value, 400, 599);
    else if (key === 'refuse' && value === 'invalid_grant') asked.refuse = true;
    else throw new TokenRefusal(400, 'invalid_request', `mock: unknown token directive "${key}=${value}" (expires_in, refuse=invalid_grant, status)`);
  }
  return asked;
}

function integerDirective(key: string, value: string, min: number, max: number): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isInteger(number) || number < min || number > max) {
    throw new TokenRefusal(400, 'invalid_request', `mock: ${key} must be an integer from ${min} to ${max}, got "${value}"`);
  }
  return number;
}

/** The URLs a client may have named as `aud`: the one it posted to, with or without the directives. */
function audiences(request: IncomingMessage, url: string): string[] {
  const full = `http://${request.headers.host ?? ''}${url}`;
  const queryStart = full.indexOf('?');
  return queryStart === -1 ? [full] : [full, full.slice(0, queryStart)];
}

/** Checks the grant and its assertion as Google does (but its signature); answers the service account it names. */
function checkedSubject(form: URLSearchParams, audienceUrls: string[]): string | undefined {
  const grantType = form.get('grant_type');
  if (grantType !== jwtBearer) throw new TokenRefusal(400, 'unsupported_grant_type', `Invalid grant_type: ${grantType ?? ''}`);
  const claims = jwtClaims(form.get('assertion') ?? '');
  if (!claims) throw new TokenRefusal(400, 'invalid_grant', 'mock: the assertion is not a JWT (three base64url parts, the first two JSON objects)');
  const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ') : [];
  if (!scopes.includes(cloudPlatformScope)) {
    throw new TokenRefusal(400, 'invalid_grant', `mock: the assertion's scope does not include ${cloudPlatformScope}`);
  }
  if (typeof claims.aud !== 'string' || !audienceUrls.includes(claims.aud)) {
    throw new TokenRefusal(400, 'invalid_grant', `mock: the assertion's aud must be this token endpoint's URL, ${audienceUrls.at(-1)}`);
  }
  const subject = claims.sub ?? claims.iss;
  return typeof subject === 'string' ? subject : undefined;
}

function jwtClaims(assertion: string): Record<string, unknown> | undefined {
  const parts = assertion.split('.');
  if (parts.length !== 3 || parts.some((part) => !/^[A-Za-z0-9_-]+$/.test(part))) return undefined;
  const [header, claims] = parts.slice(0, 2).map((part) => {
    try {
      return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    } catch {
      return undefined;
    }
  });
  return isRecord(header) && isRecord(claims) ? claims : undefined;
}
