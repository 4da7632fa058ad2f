import type { IncomingMessage, ServerResponse } from 'node:http';
import { auditContextOf } from '../audit/audit-trail.js';
import { GatewayError } from '../errors/gateway-error.js';
import { readJsonBody } from '../http/read-json-body.js';
import { noStore, sendJson } from '../http/send.js';
import { storeCall } from '../store/store-call.js';
import type { TeamStore } from '../teams/team-store.js';
import type { AdminTokenStore } from '../tokens/admin-token-store.js';
import { adminTokenView } from '../tokens/admin-token.js';
import { badTeam, parseCreateTokenBody } from '../tokens/create-token-body.js';
import type { AdminTokensResponse } from './admin-api-types.js';

export interface AdminTokensDeps {
  tokens: AdminTokenStore;
  /** Where a token's team, named by id or name, is found. */
  teams: Pick<TeamStore, 'find'>;
  nowMs?: () => number;
}

type Params = Readonly<Record<string, string>>;

/** A create-token body is a few hundred bytes. */
const MAX_BODY_BYTES = 16 * 1024;
const BODY_TIMEOUT_MS = 10_000;

/** `POST /admin/tokens` → 201 with the secret in `token`, the only time it is ever shown. */
export async function handleCreateToken(request: IncomingMessage, response: ServerResponse, _params: Params, deps: AdminTokensDeps, requestId: string): Promise<void> {
  const nowMs = (deps.nowMs ?? Date.now)();
  const asked = parseCreateTokenBody((await readJsonBody(request, { maxBytes: MAX_BODY_BYTES, timeoutMs: BODY_TIMEOUT_MS })).json, nowMs);
  let teamId: string | null = null;
  if (asked.team !== null) {
    const team = await storeCall(deps.teams.find(asked.team));
    if (!team) throw badTeam(`no team has the id or name "${asked.team}".`);
    teamId = team.id;
  }
  const input = { name: asked.name, role: asked.role, teamId, expiresAt: asked.expiresAt };
  const { token, secret } = await storeCall(deps.tokens.create(input, auditContextOf(request, requestId)));
  const { id, name, role, team, expires_at } = adminTokenView(token, nowMs);
  sendJson(response, 201, { id, token: secret, name, role, team, expires_at }, noStore());
}

/** `GET /admin/tokens` → `{data: [tokens]}`, oldest first, revoked and expired ones included. */
export async function handleListTokens(_request: IncomingMessage, response: ServerResponse, _params: Params, deps: AdminTokensDeps): Promise<void> {
  const nowMs = (deps.nowMs ?? Date.now)();
  const tokens = await storeCall(deps.tokens.list());
  sendJson(response, 200, { data: tokens.map((token) => adminTokenView(token, nowMs)) } satisfies AdminTokensResponse, noStore());
}

/** `DELETE /admin/tokens/:id` → `{id, revoked: true}`, refused from the very next request on every replica; twice is not an error. */
export async function handleRevokeToken(request: IncomingMessage, response: ServerResponse, params: Params, deps: AdminTokensDeps, requestId: string): Promise<void> {
  const id = params.id ?? '';
  const revokedNow = await storeCall(deps.tokens.revoke(id, auditContextOf(request, requestId)));
  if (!revokedNow && !(await storeCall(deps.tokens.get(id)))) {
    throw new GatewayError(`No admin token with id "${id}".`, { status: 404, code: 'not_found', type: 'invalid_request_error' });
  }
  sendJson(response, 200, { id, revoked: true }, noStore());
}
