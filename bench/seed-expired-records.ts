import Database from 'better-sqlite3';
import { migrate } from '../src/store/migrate.js';
import { openStore } from '../src/store/open-database.js';
import { SqliteInserts } from '../src/store/sqlite-inserts.js';
import type { RequestRecord } from '../src/core/request-record.js';

const DAY_MS = 86_400_000;
const SEED_BATCH = 5_000;

/**
 * Fills the gateway's store with records from 40 days ago (past the default 30-day retention),
 * one attempt each, shaped like the bench's own, so the pruner has a backlog to delete while the
 * load runs: its cost shows in the gateway's figures if it has any.
 */
export async function seedExpiredRecords(storePath: string, count: number): Promise<void> {
  const { db, sqlite } = openStore({ kind: 'sqlite', path: storePath });
  await migrate(db);
  const inserts = new SqliteInserts(sqlite);
  const createdMs = Date.now() - 40 * DAY_MS;
  for (let start = 0; start < count; start += SEED_BATCH) {
    const batch = Array.from({ length: Math.min(SEED_BATCH, count - start) }, (_, index) => expiredRecord(start + index, createdMs + start + index));
    inserts.records(batch);
  }
  await db.destroy();
}

/** Seeded records still in the store: after a run, what the pruner had not reached yet. */
export function expiredRecordsLeft(storePath: string): number {
  const reader = new Database(storePath, { readonly: true });
  try {
    return reader.prepare(`SELECT count(*) FROM requests WHERE id LIKE 'req_expired_%'`).pluck().get() as number;
  } finally {
    reader.close();
  }
}

/** A one-attempt record shaped like the bench's own requests. */
export function expiredRecord(index: number, createdMs: number): RequestRecord {
  return {
    id: `req_expired_${index}`,
    created_at: new Date(createdMs).toISOString(),
    origin: 'caller',
    status: 'ok',
    http_status: 200,
    key_name: null,
    team: null,
    model_requested: 'bench',
    route: 'bench',
    served: { connection: 'bench-mock', provider: 'mock', model: 'gpt-mock' },
    attempts: [
      {
        n: 1,
        connection: 'bench-mock',
        provider: 'mock',
        model: 'gpt-mock',
        kind: 'ok',
        http_status: 200,
        error_type: null,
        message: null,
        retry_after_ms: null,
        started_ms: 0,
        latency_ms: 3,
        first_token_ms: 1,
        first_token_timeout_ms: 30_000,
        committed: true,
        usage: { input_tokens: 12, output_tokens: 64 },
        cost_usd: null,
      },
    ],
    usage: { input_tokens: 12, output_tokens: 64 },
    cost_usd: null,
    first_token_ms: 1,
    latency_ms: 4,
    added_latency_ms: 1,
    deadline_ms: 600_000,
    idempotency_key: null,
    stream: false,
    error_code: null,
    error_message: null,
  };
}
