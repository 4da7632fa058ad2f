import type { IncomingMessage, ServerResponse } from 'node:http';
import { auditContextOf } from '../audit/audit-trail.js';
import { GatewayError } from '../errors/gateway-error.js';
import { readJsonBody } from '../http/read-json-body.js';
import { noStore, sendJson } from '../http/send.js';
import { parseCreateKeyBody } from '../keys/create-key-body.js';
import type { KeyCache } from '../keys/key-cache.js';
import type { KeyStore } from '../keys/key-store.js';
import { createdKeyView, keySpendView, keyView } from '../keys/key-view.js';
import type { AdminKeysResponse } from './admin-api-types.js';
import { actorOf } from '../access/request-actor.js';
import type { TeamStore } from '../teams/team-store.js';
import { keyToCreate, requireMayRevoke, requireMaySeeSpend, visibleKeys } from './key-access.js';
import { microsToUsd } from '../metering/money.js';
import { storeCall } from '../store/store-call.js';

export interface AdminKeysDeps {
  store: KeyStore;
  /** Where a new key's team is found, by id or name. */
  teams: Pick<TeamStore, 'find'>;
  /** Told of every revocation, so it takes effect on the very next request (on every replica, with shared state). */
  cache: Pick<KeyCache, 'forget'>;
  /** Spent by the key since a time, from the ledger; rejects when the store cannot say (spend still unwritten counts). */
  spentMicros(keyId: string, sinceMs: number): Promise<number>;
  /** Held back by the key's requests in flight (budget reservations); a key of a team is counted under its team. */
  reservedMicros?(keyId: string, teamId: string | null): Promise<number>;
  nowMs?: () => number;
}

type Params = Readonly<Record<string, string>>;

/** A create-key body is a few hundred bytes; anything near this is not one. */
export const MAX_BODY_BYTES = 64 * 1024;
/** Such a body arrives at once; a caller still sending one after this is refused (408). */
export const BODY_TIMEOUT_MS = 10_000;

/** A created key's secret must not linger in any cache between the gateway and the operator. */

/** `POST /admin/keys` → 201 with the secret, the only time it is ever shown (docs/keys-and-budgets.md). */
export async function handleCreateKey(request: IncomingMessage, response: ServerResponse, _params: Params, deps: AdminKeysDeps, requestId: string): Promise<void> {
  const nowMs = (deps.nowMs ?? Date.now)();
  const asked = parseCreateKeyBody((await readJsonBody(request, { maxBytes: MAX_BODY_BYTES, timeoutMs: BODY_TIMEOUT_MS })).json, nowMs);
  const input = await keyToCreate(actorOf(request), asked, (team) => storeCall(deps.teams.find(team)), nowMs);
  const { key, secret } = await storeCall(deps.store.create(input, auditContextOf(request, requestId)));
  sendJson(response, 201, createdKeyView(key, secret), noStore());
}

/** `GET /admin/keys` → `{data: [keys]}`, oldest first, revoked ones included; those the caller may see (key-access.ts). */
export async function handleListKeys(request: IncomingMessage, response: ServerResponse, _params: Params, deps: AdminKeysDeps): Promise<void> {
  const nowMs = (deps.nowMs ?? Date.now)();
  const keys = visibleKeys(actorOf(request), await storeCall(deps.store.list()));
  sendJson(response, 200, { data: keys.map((key) => keyView(key, nowMs)) } satisfies AdminKeysResponse, noStore());
}

/** `DELETE /admin/keys/:id` → `{id, revoked: true}`; revoking twice is not an error. */
export async function handleRevokeKey(request: IncomingMessage, response: ServerResponse, params: Params, deps: AdminKeysDeps, requestId: string): Promise<void> {
  const id = params.id ?? '';
  const key = await storeCall(deps.store.get(id));
  if (!key) throw unknownKey(id);
  requireMayRevoke(actorOf(request), key);
  await storeCall(deps.store.revoke(id, auditContextOf(request, requestId)));
  deps.cache.forget(id);
  sendJson(response, 200, { id, revoked: true }, noStore());
}

/** `GET /admin/keys/:id/spend` → spend in the key's current budget period. */
export async function handleKeySpend(request: IncomingMessage, response: ServerResponse, params: Params, deps: AdminKeysDeps): Promise<void> {
  const id = params.id ?? '';
  const key = await storeCall(deps.store.get(id));
  if (!key) throw unknownKey(id);
  requireMaySeeSpend(actorOf(request), key);
  const view = keySpendView(key, (deps.nowMs ?? Date.now)());
  const spent = await storeCall(deps.spentMicros(key.id, Date.parse(view.period_start)));
  const reserved = (await deps.reservedMicros?.(key.id, key.teamId)) ?? 0;
  sendJson(response, 200, { ...view, usd: microsToUsd(spent), reserved_usd: microsToUsd(reserved) }, noStore());
}

export function unknownKey(id: string): GatewayError {
  return new GatewayError(`No key with id "${id}".`, { status: 404, code: 'not_found', type: 'invalid_request_error' });
}
