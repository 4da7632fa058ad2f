import type { Database, Statement } from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { openSqlite } from './open-database.js';
import type { RequestRecord } from '../core/request-record.js';
import type { SpendRow } from '../core/spend-row.js';
import { SqliteInserts } from './sqlite-inserts.js';
import { sqliteAudited, type AuditedChange, type AuditedResult } from './audited-writes.js';

/** One thing the store thread is asked to do. */
export type StoreCall =
  /**
   * Records and spend rows cross as JSON lines, one string per batch: copying one string is far
   * cheaper than a structured clone of each object (7 µs a spend row, 3 µs a record, measured in the
   * serving thread), and a record's line is stored as it came instead of made again. JSON text never
   * holds a raw line feed, so `\n` separates them.
   */
  | { kind: 'records'; lines: string }
  | { kind: 'spend'; lines: string }
  | { kind: 'prune'; olderThanMs: number; limit: number }
  | { kind: 'query'; sql: string; parameters: readonly unknown[] }
  | { kind: 'audited'; change: AuditedChange };

/** A call as sent (see `StoreThread`), answered by a `StoreReply` with the same id; not started past its deadline. */
export type StoreRequest = StoreCall & { id: number; deadlineAtMs: number };

/** A query's answer, in kysely's `QueryResult` shape. */
export interface QueryAnswer {
  rows: unknown[];
  numAffectedRows?: bigint;
  insertId?: bigint;
}

/** Errors cross the thread boundary as text: a cloned SqliteError arrives without its message. */
export interface StoreReply {
  id: number;
  error?: string;
  result?: QueryAnswer | number | AuditedResult;
}

/** Sent once the thread's connection is open. */
export interface StoreReady {
  ready: true;
}

/**
 * How long one statement waits for another process's lock. Short on purpose: past it the
 * statement fails, the caller answers 503 or spills at once, and this thread is free for the
 * next call (reads, which WAL does not block, keep being answered).
 */
const STORE_BUSY_TIMEOUT_MS = 100;

/** Distinct statements kept prepared; the gateway's queries come in a few dozen shapes. */
const MAX_PREPARED = 200;

const port = parentPort;
if (!port) throw new Error('store-worker runs as a worker thread (see StoreThread)');
// Its own connection to the store file named by the serving thread, which has migrated it.
const sqlite = openSqlite(workerData as string, { busyTimeoutMs: STORE_BUSY_TIMEOUT_MS });
const inserts = new SqliteInserts(sqlite);
const prepared = new Map<string, Statement>();
let busyTimeoutMs = STORE_BUSY_TIMEOUT_MS;
port.postMessage({ ready: true } satisfies StoreReady);

port.on('message', (request: StoreRequest) => {
  const remainingMs = request.deadlineAtMs - Date.now();
  // The caller has already given up (and answered, or spilled): doing it now would only surprise it.
  if (remainingMs <= 0) {
    port.postMessage({ id: request.id, error: 'expired before the store thread reached it' } satisfies StoreReply);
    return;
  }
  try {
    // Never wait for a lock past the caller's deadline: a key created after its 503 would be a surprise.
    waitForLocksAtMost(Math.min(STORE_BUSY_TIMEOUT_MS, Math.ceil(remainingMs)));
    port.postMessage({ id: request.id, result: run(request) } satisfies StoreReply);
  } catch (error) {
    port.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies StoreReply);
  }
});

function run(request: StoreRequest): QueryAnswer | number | AuditedResult | undefined {
  switch (request.kind) {
    case 'records': {
      const texts = linesOf(request.lines);
      inserts.records(texts.map((text) => JSON.parse(text) as RequestRecord), texts);
      return undefined;
    }
    case 'spend':
      inserts.spend(linesOf(request.lines).map((text) => JSON.parse(text) as SpendRow));
      return undefined;
    case 'prune':
      return inserts.pruneRecords({ olderThanMs: request.olderThanMs, limit: request.limit });
    case 'query':
      return query(statement(sqlite, request.sql), request.parameters);
    case 'audited':
      return sqliteAudited(sqlite, request.change);
  }
}

/** An empty batch is no line, not one empty line. */
function linesOf(text: string): string[] {
  return text === '' ? [] : text.split('\n');
}

/** As kysely's own SQLite driver does it: readers return rows, the rest what they changed. */
function query(statement: Statement, parameters: readonly unknown[]): QueryAnswer {
  if (statement.reader) return { rows: statement.all(...parameters) };
  const { changes, lastInsertRowid } = statement.run(...parameters);
  return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
}

function statement(database: Database, sql: string): Statement {
  let found = prepared.get(sql);
  if (!found) {
    if (prepared.size >= MAX_PREPARED) prepared.clear();
    found = database.prepare(sql);
    prepared.set(sql, found);
  }
  return found;
}

function waitForLocksAtMost(timeoutMs: number): void {
  if (timeoutMs === busyTimeoutMs) return;
  sqlite.pragma(`busy_timeout = ${timeoutMs}`);
  busyTimeoutMs = timeoutMs;
}
