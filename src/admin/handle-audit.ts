import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Kysely } from 'kysely';
import { listAudit, MAX_AUDIT_LIMIT, type AuditFilter } from '../audit/audit-query.js';
import { AUDIT_ACTIONS } from '../core/audit-entry.js';
import { noStore, sendJson } from '../http/send.js';
import { sinceToEpochMs } from '../records/record-store.js';
import type { DatabaseSchema } from '../store/schema.js';
import { storeCall } from '../store/store-call.js';
import type { AdminAuditResponse } from './admin-api-types.js';
import { badParameter, limitParameter } from './bad-parameter.js';

export interface AdminAuditDeps {
  db: Kysely<DatabaseSchema>;
}

const QUERY_PARAMETERS = ['since', 'until', 'actor', 'action', 'target', 'limit', 'before', 'after'] as const;

/**
 * `GET /admin/audit?since=&until=&actor=&action=&target=&limit=&before=&after=` → `{data: [rows]}`,
 * newest first (`before` a `seq` to page back from); with `after` (a `seq`), oldest first from
 * the row after it, which is how the trail is read whole (`switchyard audit export|verify`).
 */
export async function handleListAudit(request: IncomingMessage, response: ServerResponse, deps: AdminAuditDeps): Promise<void> {
  const filter = parseAuditQuery(new URL(request.url ?? '/', 'http://gateway.invalid').searchParams);
  const data = await storeCall(listAudit(deps.db, filter));
  sendJson(response, 200, { data } satisfies AdminAuditResponse, noStore());
}

/** Refuses (never ignores or clamps) a bad or unknown parameter, naming it. */
function parseAuditQuery(query: URLSearchParams): AuditFilter {
  for (const name of new Set(query.keys())) {
    if (!(QUERY_PARAMETERS as readonly string[]).includes(name)) throw badParameter(name, `Unknown query parameter "${name}"; expected one of ${QUERY_PARAMETERS.join(', ')}.`);
    if (query.getAll(name).length > 1) throw badParameter(name, `Query parameter "${name}" is given more than once.`);
  }
  const filter: AuditFilter = {};
  const since = timeParameter(query, 'since');
  if (since !== undefined) filter.sinceMs = since;
  const until = timeParameter(query, 'until');
  if (until !== undefined) filter.untilMs = until;
  for (const name of ['actor', 'target'] as const) {
    const value = query.get(name);
    if (value === null) continue;
    if (value === '') throw badParameter(name, `Query parameter "${name}" is empty; give ${name === 'actor' ? "an actor's id" : "a target's id"}.`);
    filter[name] = value;
  }
  const action = query.get('action');
  if (action !== null) {
    const known = AUDIT_ACTIONS.find((candidate) => candidate === action);
    if (!known) throw badParameter('action', `Query parameter "action" must be one of ${AUDIT_ACTIONS.join(', ')} (got "${action}").`);
    filter.action = known;
  }
  const before = seqParameter(query, 'before', 1);
  if (before !== undefined) filter.before = before;
  const after = seqParameter(query, 'after', 0);
  if (after !== undefined) filter.after = after;
  const limit = limitParameter(query, MAX_AUDIT_LIMIT);
  if (limit !== undefined) filter.limit = limit;
  return filter;
}

function timeParameter(query: URLSearchParams, name: 'since' | 'until'): number | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  const ms = sinceToEpochMs(value);
  if (ms === undefined) throw badParameter(name, `Query parameter "${name}" must be an ISO 8601 time or epoch milliseconds (got "${value}").`);
  return ms;
}

/** A row's `seq`: a whole number, at least `min`. */
function seqParameter(query: URLSearchParams, name: 'before' | 'after', min: number): number | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(parsed >= min && Number.isSafeInteger(parsed))) throw badParameter(name, `Query parameter "${name}" must be a row's seq, a whole number from ${min} (got "${value}").`);
  return parsed;
}
