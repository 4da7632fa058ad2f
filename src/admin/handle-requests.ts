import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError } from '../errors/gateway-error.js';
import { noStore, sendJson } from '../http/send.js';
import { MAX_LIST_LIMIT, sinceToEpochMs, UnknownRecordError, type RecordFilter, type RecordStore } from '../records/record-store.js';
import type { RequestStatus } from '../core/request-record.js';
import { storeCall } from '../store/store-call.js';
import { badParameter, limitParameter } from './bad-parameter.js';
import { originParameter } from './origin-parameter.js';
import type { AdminRequestsResponse, RequestErrorKind, UpstreamFailureKind } from './admin-api-types.js';
import { FailureKind } from '../core/failure-kind.js';
import { REFUSAL_CLASSES, type RequestOutcome } from '../core/request-outcome.js';
import { permissionDenied, visibleTeams } from '../access/permission-denied.js';
import { actorOf } from '../access/request-actor.js';
import type { TeamStore } from '../teams/team-store.js';
import { teamScope } from './team-scope.js';

export interface AdminRequestsDeps {
  records: RecordStore;
  /** Where `team=` is found, by id or name. */
  teams: Pick<TeamStore, 'find'>;
}

const STATUSES: readonly RequestStatus[] = ['ok', 'interrupted', 'failed', 'rejected', 'cancelled'];
const QUERY_PARAMETERS = ['route', 'status', 'since', 'origin', 'key', 'team', 'deployment', 'error_kind', 'fallback', 'limit', 'before'] as const;
/** `error_kind`: a failure kind of the last attempt of a request that failed upstream, or a refusal class. */
const ERROR_KINDS: readonly RequestErrorKind[] = [
  ...(Object.values(FailureKind).filter((kind) => kind !== 'ok') as RequestErrorKind[]),
  ...REFUSAL_CLASSES.map((name) => `refused_${name}` as const),
];

/** Records can hold prompts' metadata and error text: never let a proxy or browser keep them. */

/** `GET /admin/requests/:id` → the record (docs/operations.md), 404 when unknown, 403 when of a team the caller holds no role in. */
export async function handleGetRequest(
  request: IncomingMessage,
  response: ServerResponse,
  params: Readonly<Record<string, string>>,
  deps: AdminRequestsDeps,
): Promise<void> {
  const id = params.id ?? '';
  const record = await storeCall(deps.records.get(id));
  if (!record) throw new GatewayError(`No request with id "${id}".`, { status: 404, code: 'not_found', type: 'invalid_request_error' });
  const visible = visibleTeams(actorOf(request));
  if (visible && (record.team === null || !visible.has(record.team))) {
    throw record.team === null
      ? permissionDenied(['admin', 'auditor'], `request ${id}, made with no team's key,`)
      : permissionDenied(['auditor', 'team_admin', 'member'], `request ${id} of team ${record.team}`);
  }
  sendJson(response, 200, record, noStore());
}

/**
 * `GET /admin/requests?route=&status=&since=&origin=&key=&team=&deployment=&error_kind=&fallback=&limit=&before=`
 * → `{data: [records]}`, newest first; callers' unless `origin` says otherwise (`all` for every
 * origin); a `team_admin`'s or `member`'s teams' only (team-scope.ts).
 */
export async function handleListRequests(
  request: IncomingMessage,
  response: ServerResponse,
  _params: Readonly<Record<string, string>>,
  deps: AdminRequestsDeps,
): Promise<void> {
  const query = new URL(request.url ?? '/', 'http://gateway.invalid').searchParams;
  const filter = parseListQuery(query);
  const teams = await teamScope(actorOf(request), query.get('team'), (team) => deps.teams.find(team));
  if (teams !== undefined) filter.teams = teams;
  const listed = deps.records.list(filter).catch((error: unknown) => {
    if (error instanceof UnknownRecordError) throw badParameter('before', `Query parameter "before" names no stored request (got "${error.id}").`);
    throw error;
  });
  sendJson(response, 200, { data: await storeCall(listed) } satisfies AdminRequestsResponse, noStore());
}

/** Refuses (never ignores or clamps) a bad or unknown parameter, naming it. */
function parseListQuery(query: URLSearchParams): RecordFilter {
  for (const name of new Set(query.keys())) {
    if (!(QUERY_PARAMETERS as readonly string[]).includes(name)) throw badParameter(name, `Unknown query parameter "${name}"; expected one of ${QUERY_PARAMETERS.join(', ')}.`);
    if (query.getAll(name).length > 1) throw badParameter(name, `Query parameter "${name}" is given more than once.`);
  }
  const filter: RecordFilter = {};
  const route = query.get('route');
  if (route !== null) {
    if (route === '') throw badParameter('route', 'Query parameter "route" is empty.');
    filter.route = route;
  }
  const status = query.get('status');
  if (status !== null) {
    const known = STATUSES.find((candidate) => candidate === status);
    if (!known) throw badParameter('status', `Query parameter "status" must be one of ${STATUSES.join(', ')} (got "${status}").`);
    filter.status = known;
  }
  const since = query.get('since');
  if (since !== null) {
    if (sinceToEpochMs(since) === undefined) throw badParameter('since', `Query parameter "since" must be an ISO 8601 time or epoch milliseconds (got "${since}").`);
    filter.since = since;
  }
  const origin = originParameter(query);
  if (origin !== 'all') filter.origin = origin;
  const key = query.get('key');
  if (key !== null) {
    if (key === '') throw badParameter('key', 'Query parameter "key" is empty; give a key\'s name.');
    filter.keyName = key;
  }
  const deployment = query.get('deployment');
  if (deployment !== null) {
    const slash = deployment.indexOf('/');
    if (slash <= 0 || slash === deployment.length - 1) throw badParameter('deployment', `Query parameter "deployment" must be <connection>/<model> (got "${deployment}").`);
    filter.served = { connection: deployment.slice(0, slash), model: deployment.slice(slash + 1) };
  }
  const errorKind = query.get('error_kind');
  if (errorKind !== null) {
    const known = ERROR_KINDS.find((candidate) => candidate === errorKind);
    if (!known) throw badParameter('error_kind', `Query parameter "error_kind" must be one of ${ERROR_KINDS.join(', ')} (got "${errorKind}").`);
    filter.outcome = known.startsWith('refused_') ? (known as RequestOutcome) : `failed_${known as UpstreamFailureKind}`;
  }
  const fallback = query.get('fallback');
  if (fallback !== null) {
    if (fallback !== 'true' && fallback !== 'false') throw badParameter('fallback', `Query parameter "fallback" must be true or false (got "${fallback}").`);
    filter.fallback = fallback === 'true';
  }
  const before = query.get('before');
  if (before !== null) {
    if (before === '') throw badParameter('before', 'Query parameter "before" is empty; give the id of a request to page from.');
    filter.before = before;
  }
  const limit = limitParameter(query, MAX_LIST_LIMIT);
  if (limit !== undefined) filter.limit = limit;
  return filter;
}
