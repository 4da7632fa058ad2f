import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { requireTeamRole } from '../access/permission-denied.js';
import { actorOf } from '../access/request-actor.js';
import { auditContextOf } from '../audit/audit-trail.js';
import type { Role } from '../core/actor.js';
import { validateBody } from '../dialects/shared/validate-body.js';
import { GatewayError } from '../errors/gateway-error.js';
import { hasBody, readJsonBody } from '../http/read-json-body.js';
import { noStore, sendJson } from '../http/send.js';
import { parseKeyChangesBody } from '../keys/key-changes-body.js';
import type { KeyChangeOutcome } from '../keys/key-store.js';
import { keyView } from '../keys/key-view.js';
import type { VirtualKey } from '../keys/virtual-key.js';
import { storeCall } from '../store/store-call.js';
import { BODY_TIMEOUT_MS, MAX_BODY_BYTES, unknownKey, type AdminKeysDeps } from './handle-keys.js';

type Params = Readonly<Record<string, string>>;

/** An hour: long enough to roll a new secret out to a service's replicas, short enough to end soon. */
export const DEFAULT_ROTATION_OVERLAP_S = 3_600;
/** A rotation's point is that the old secret stops; thirty days is the longest it may linger. */
const MAX_ROTATION_OVERLAP_S = 30 * 24 * 3_600;

const rotateBodySchema = z
  .object({
    overlap_s: z
      .int({ error: 'must be a whole number of seconds' })
      .min(0, { error: 'must be 0 (the old secret stops at once) or more' })
      .max(MAX_ROTATION_OVERLAP_S, { error: `must be at most ${MAX_ROTATION_OVERLAP_S} (30 days)` })
      .nullish(),
  })
  .strict();

/**
 * `POST /admin/keys/:id/rotate {overlap_s?}` → 201 with the key and its new secret in `key`, shown
 * once; the replaced secret keeps working until `previous_expires_at`. Every replica's key cache
 * forgets the key, so both secrets are judged from the store on their next request.
 */
export async function handleRotateKey(request: IncomingMessage, response: ServerResponse, params: Params, deps: AdminKeysDeps, requestId: string): Promise<void> {
  const key = await changeableKey(request, params, deps, 'rotating a key');
  const body = hasBody(request) ? (await readJsonBody(request, { maxBytes: MAX_BODY_BYTES, timeoutMs: BODY_TIMEOUT_MS })).json : {};
  const overlapS = validateBody(rotateBodySchema, body).overlap_s ?? DEFAULT_ROTATION_OVERLAP_S;
  const rotated = settled(await storeCall(deps.store.rotate(key.id, overlapS, auditContextOf(request, requestId))), key.id, 'rotated');
  deps.cache.forget(key.id);
  const nowMs = (deps.nowMs ?? Date.now)();
  sendJson(response, 201, { ...keyView(rotated.key, nowMs), key: rotated.secret, previous_expires_at: rotated.previousExpiresAt }, noStore());
}

/** `PATCH /admin/keys/:id` → 200 with the key as changed, in force on the next request on every replica. */
export async function handleUpdateKey(request: IncomingMessage, response: ServerResponse, params: Params, deps: AdminKeysDeps, requestId: string): Promise<void> {
  const key = await changeableKey(request, params, deps, 'changing a key');
  const nowMs = (deps.nowMs ?? Date.now)();
  const changes = parseKeyChangesBody((await readJsonBody(request, { maxBytes: MAX_BODY_BYTES, timeoutMs: BODY_TIMEOUT_MS })).json, nowMs);
  const changed = settled(await storeCall(deps.store.update(key.id, changes, auditContextOf(request, requestId))), key.id, 'changed');
  deps.cache.forget(key.id);
  sendJson(response, 200, keyView(changed, nowMs), noStore());
}

/** The key the path names, once the caller is known to hold `admin`, or `team_admin` of the key's team (403 otherwise). */
async function changeableKey(request: IncomingMessage, params: Params, deps: AdminKeysDeps, what: string): Promise<VirtualKey> {
  const id = params.id ?? '';
  const key = await storeCall(deps.store.get(id));
  if (!key) throw unknownKey(id);
  // A key of no team is only an admin's.
  const roles: Role[] = key.teamId === null ? ['admin'] : ['admin', 'team_admin'];
  requireTeamRole(actorOf(request), key.teamId, roles, what);
  return key;
}

function settled<Changed>(result: KeyChangeOutcome<Changed>, id: string, verb: string): Changed {
  if (result.outcome === 'done') return result.changed;
  if (result.outcome === 'unknown') throw unknownKey(id);
  const message =
    result.outcome === 'revoked'
      ? `Key "${id}" is revoked: a revoked key cannot be ${verb}; create a new one.`
      : `Key "${id}" was changed by another request meanwhile and was not ${verb}; read it again and retry.`;
  throw new GatewayError(message, { status: 409, code: 'conflict', type: 'invalid_request_error' });
}
