import type { Insertable } from 'kysely';
import type { RequestOrigin } from '../core/request-origin.js';
import { requestOutcome } from '../core/request-outcome.js';
import type { SpendRow } from '../core/spend-row.js';
import type { RequestRecord } from '../core/request-record.js';
import type { AttemptsTable, RequestsTable, SpendTable } from './schema.js';

/**
 * The rows a record and a spend row are stored as, the same for every store kind: what the
 * columns hold (0/1 for booleans, whole milliseconds) is decided here once.
 */
export function requestRow(record: RequestRecord, recordJson: string = JSON.stringify(record)): Insertable<RequestsTable> {
  return {
    id: record.id,
    created_at: record.created_at,
    created_ms: createdMsOf(record),
    status: record.status,
    http_status: record.http_status,
    route: record.route,
    model_requested: record.model_requested,
    key_name: record.key_name,
    origin: storedOrigin(record),
    stream: record.stream ? 1 : 0,
    // Integer columns; the exact value stays in record_json.
    latency_ms: Math.round(record.latency_ms),
    record_json: recordJson,
    outcome: requestOutcome(record),
    served_connection: record.served?.connection ?? null,
    served_model: record.served?.model ?? null,
    fallback: record.fallback === undefined ? null : record.fallback ? 1 : 0,
    // A spill file written by a build from before teams holds records without one.
    team_id: record.team ?? null,
  };
}

/** When the record's request started, epoch milliseconds. */
export function createdMsOf(record: RequestRecord): number {
  const createdMs = Date.parse(record.created_at);
  // A malformed timestamp must not make the batch fail forever; file it under "now".
  return Number.isFinite(createdMs) ? createdMs : Date.now();
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

/**
 * A spill file written by a build from before origins holds records and spend rows without one;
 * replayed after an upgrade, they are stored as that build marked them (a probe, or a caller).
 */
export function storedOrigin(item: { origin?: RequestOrigin; probe?: boolean }): RequestOrigin {
  return item.origin ?? (item.probe === true ? 'probe' : 'caller');
}
