import type { Insertable } from 'kysely';
import type { SpendRow } from '../core/spend-row.js';
import type { RequestRecord } from '../core/request-record.js';
import { recordFacts, storedOrigin, type RecordFacts } from './record-facts.js';
import type { AttemptsTable, RequestsTable, SpendTable } from './schema.js';

/**
 * The rows a record and a spend row are stored as, the same for every store kind: what the
 * columns hold (0/1 for booleans, whole milliseconds) is decided here once. A batch's writer
 * passes the `facts` it works out for the rollups too.
 */
export function requestRow(record: RequestRecord, recordJson: string = JSON.stringify(record), facts: RecordFacts = recordFacts(record)): Insertable<RequestsTable> {
  return {
    id: record.id,
    created_at: record.created_at,
    created_ms: facts.createdMs,
    status: record.status,
    http_status: record.http_status,
    route: record.route,
    model_requested: record.model_requested,
    key_name: record.key_name,
    origin: facts.origin,
    stream: record.stream ? 1 : 0,
    // Integer columns; the exact value stays in record_json.
    latency_ms: Math.round(record.latency_ms),
    record_json: recordJson,
    outcome: facts.outcome,
    served_connection: record.served?.connection ?? null,
    served_model: record.served?.model ?? null,
    fallback: record.fallback === undefined ? null : record.fallback ? 1 : 0,
    // A spill file written by a build from before teams holds records without one.
    team_id: record.team ?? null,
  };
}

export function attemptRows(record: RequestRecord): Insertable<AttemptsTable>[] {
  return record.attempts.map((attempt) => ({
    request_id: record.id,
    n: attempt.n,
    connection: attempt.connection,
    provider: attempt.provider,
    model: attempt.model,
    kind: attempt.kind,
    http_status: attempt.http_status,
    latency_ms: Math.round(attempt.latency_ms),
    committed: attempt.committed ? 1 : 0,
  }));
}

export function spendTableRow(row: SpendRow): Insertable<SpendTable> {
  return {
    request_id: row.requestId,
    attempt_n: row.attemptN,
    key_id: row.keyId,
    key_name: row.keyName,
    route: row.route,
    connection: row.connection,
    provider: row.provider,
    model: row.model,
    input_tokens: row.inputTokens,
    output_tokens: row.outputTokens,
    cache_read_tokens: row.cacheReadTokens,
    cache_write_tokens: row.cacheWriteTokens,
    // A spill file written by a build from before 1-hour writes were counted has rows without it.
    cache_write_1h_tokens: row.cacheWrite1hTokens ?? 0,
    cost_micros: row.costMicros,
    estimated: row.estimated ? 1 : 0,
    priced: row.priced ? 1 : 0,
    probe: storedOrigin(row) === 'probe' ? 1 : 0,
    origin: storedOrigin(row),
    created_ms: row.createdMs,
  };
}
