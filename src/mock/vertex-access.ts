import type { IncomingMessage } from 'node:http';
import type { BearerCheck, IssuedTokens } from './issued-tokens.js';
import type { Route } from './routes.js';
import { unauthenticated } from './vertex-error-bodies.js';
import type { ErrorAnswer } from './wire.js';

/** The bearer of a Vertex request, checked against the tokens the mock's token endpoint issued. */
export function checkBearer(request: IncomingMessage, tokens: IssuedTokens, nowMs: number): BearerCheck {
  const authorization = request.headers.authorization;
  const bearer = authorization === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  return tokens.check(bearer, nowMs);
}

/** What a Vertex attempt records in place of its `authorization` header. */
export function recordedAuthorization(bearer: BearerCheck): string {
  return bearer.ok ? `Bearer [token ${bearer.token}]` : `Bearer [${bearer.problem} token]`;
}

/** Vertex's 401 for a request without a live token the mock issued; undefined for any other route or a good token. */
export function vertexAccessRefusal(route: Route, bearer: BearerCheck | undefined): ErrorAnswer | undefined {
  if (!route.vertex || !bearer || bearer.ok) return undefined;
  return { status: 401, body: JSON.stringify(unauthenticated(route.vertex, bearer.problem)), headers: {} };
}
