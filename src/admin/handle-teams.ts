import type { KeyCache } from '../keys/key-cache.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { permissionDenied, requireTeamRole, visibleTeams } from '../access/permission-denied.js';
import { actorOf } from '../access/request-actor.js';
import { auditContextOf } from '../audit/audit-trail.js';
import type { Actor } from '../core/actor.js';
import { GatewayError } from '../errors/gateway-error.js';
import { readJsonBody } from '../http/read-json-body.js';
import { noStore, sendJson } from '../http/send.js';
import { microsToUsd } from '../metering/money.js';
import { storeCall } from '../store/store-call.js';
import { parseCreateTeamBody, parseTeamPatch, type TeamPatch } from '../teams/team-body.js';
import type { TeamStore } from '../teams/team-store.js';
import { teamSpendPeriod, teamView, type TeamSpendView } from '../teams/team-view.js';
import type { Team } from '../teams/team.js';
import type { AdminTeamsResponse } from './admin-api-types.js';

export interface AdminTeamsDeps {
  teams: TeamStore;
  /** Told of every change and deletion, so the team's keys follow it from their next request (on every replica, with shared state). */
  cache: Pick<KeyCache, 'forget'>;
  /** Spent by the team's keys since a time, from the ledger (spend still unwritten counts). */
  spentMicros(teamId: string, sinceMs: number): Promise<number>;
  /** Held back by the team's requests in flight (budget reservations). */
  reservedMicros?(teamId: string): Promise<number>;
  nowMs?: () => number;
}

type Params = Readonly<Record<string, string>>;

/** A team's body is a few hundred bytes; anything near this is not one. */
const MAX_BODY_BYTES = 64 * 1024;
const BODY_TIMEOUT_MS = 10_000;
/** Every role that may read a team it holds a role in. */
const TEAM_READERS = ['auditor', 'team_admin', 'member'] as const;

/** `POST /admin/teams` → 201 with the team (docs/teams-and-access.md); 409 when the name is taken. */
export async function handleCreateTeam(request: IncomingMessage, response: ServerResponse, _params: Params, deps: AdminTeamsDeps, requestId: string): Promise<void> {
  const fields = parseCreateTeamBody(await readBody(request));
  await refuseTakenName(deps, fields.name, undefined);
  const team = await storeCall(deps.teams.create(fields, auditContextOf(request, requestId)));
  sendJson(response, 201, teamView(team), noStore());
}

/** `GET /admin/teams` → `{data: [teams]}`, oldest first: every team for `admin` and `auditor`, else those the caller holds a role in. */
export async function handleListTeams(request: IncomingMessage, response: ServerResponse, _params: Params, deps: AdminTeamsDeps): Promise<void> {
  const visible = visibleTeams(actorOf(request));
  const teams = (await storeCall(deps.teams.list())).filter((team) => visible === undefined || visible.has(team.id));
  sendJson(response, 200, { data: teams.map(teamView) } satisfies AdminTeamsResponse, noStore());
}

/** `GET /admin/teams/:id` (an id or a name). */
export async function handleGetTeam(request: IncomingMessage, response: ServerResponse, params: Params, deps: AdminTeamsDeps): Promise<void> {
  const team = await readableTeam(request, params, deps);
  sendJson(response, 200, teamView(team), noStore());
}

/**
 * `PATCH /admin/teams/:id`: the fields the body names, as a JSON merge patch (`TeamPatch`: null
 * clears one). A `team_admin` may change its own team's exploration policy and nothing else.
 */
export async function handlePatchTeam(request: IncomingMessage, response: ServerResponse, params: Params, deps: AdminTeamsDeps, requestId: string): Promise<void> {
  const patch = parseTeamPatch(await readBody(request));
  const team = await knownTeam(params, deps);
  const actor = actorOf(request);
  requireMayPatch(actor, team, patch);
  if (patch.name !== undefined) await refuseTakenName(deps, patch.name, team.id);
  const updated = await storeCall(deps.teams.update(team.id, patch, auditContextOf(request, requestId)));
  deps.cache.forget(team.id);
  if (!updated) throw unknownTeam(params.id ?? '');
  sendJson(response, 200, teamView(updated), noStore());
}

/** `DELETE /admin/teams/:id` → `{id, deleted: true}`; 409 while the team has active keys. */
export async function handleDeleteTeam(request: IncomingMessage, response: ServerResponse, params: Params, deps: AdminTeamsDeps, requestId: string): Promise<void> {
  const deletion = await storeCall(deps.teams.delete(params.id ?? '', auditContextOf(request, requestId)));
  if (deletion.deleted) {
    deps.cache.forget(deletion.team.id);
    sendJson(response, 200, { id: deletion.team.id, deleted: true }, noStore());
    return;
  }
  if (!deletion.team) throw unknownTeam(params.id ?? '');
  const keys = deletion.activeKeys === 1 ? '1 active key' : `${deletion.activeKeys} active keys`;
  throw conflict(`Team ${deletion.team.name} still has ${keys} (neither revoked nor expired): revoke them before deleting the team.`);
}

/** `GET /admin/teams/:id/spend` → what the team's keys spent in its current budget period, and what its requests in flight hold. */
export async function handleTeamSpend(request: IncomingMessage, response: ServerResponse, params: Params, deps: AdminTeamsDeps): Promise<void> {
  const team = await readableTeam(request, params, deps);
  const period = teamSpendPeriod(team, (deps.nowMs ?? Date.now)());
  const spent = await storeCall(deps.spentMicros(team.id, Date.parse(period.period_start)));
  const reserved = (await deps.reservedMicros?.(team.id)) ?? 0;
  sendJson(response, 200, { ...period, usd: microsToUsd(spent), reserved_usd: microsToUsd(reserved) } satisfies TeamSpendView, noStore());
}

function readBody(request: IncomingMessage): Promise<unknown> {
  return readJsonBody(request, { maxBytes: MAX_BODY_BYTES, timeoutMs: BODY_TIMEOUT_MS }).then((body) => body.json);
}

async function knownTeam(params: Params, deps: AdminTeamsDeps): Promise<Team> {
  const team = await storeCall(deps.teams.find(params.id ?? ''));
  if (!team) throw unknownTeam(params.id ?? '');
  return team;
}

/** The team, if the caller holds a role in it (or reads every team); 403 otherwise. */
async function readableTeam(request: IncomingMessage, params: Params, deps: AdminTeamsDeps): Promise<Team> {
  const team = await knownTeam(params, deps);
  requireTeamRole(actorOf(request), team.id, TEAM_READERS, `reading team ${team.name}`);
  return team;
}

function requireMayPatch(actor: Actor, team: Team, patch: TeamPatch): void {
  if (actor.global === 'admin') return;
  requireTeamRole(actor, team.id, ['team_admin'], `changing team ${team.name}`);
  // The body's `limits` is two fields here.
  const others = new Set(Object.keys(patch).filter((field) => field !== 'exploration').map((field) => (field === 'rpm' || field === 'tpm' ? 'limits' : field)));
  if (others.size > 0) throw permissionDenied(['admin'], `changing a team's ${[...others].join(', ')}`);
}

async function refuseTakenName(deps: AdminTeamsDeps, name: string, ownId: string | undefined): Promise<void> {
  const holder = await storeCall(deps.teams.find(name));
  if (holder && holder.id !== ownId) throw conflict(`A team named "${name}" exists already (${holder.id}): team names are unique.`);
}

function unknownTeam(idOrName: string): GatewayError {
  return new GatewayError(`No team with id or name "${idOrName}".`, { status: 404, code: 'not_found', type: 'invalid_request_error' });
}

function conflict(message: string): GatewayError {
  return new GatewayError(message, { status: 409, code: 'conflict', type: 'invalid_request_error' });
}
