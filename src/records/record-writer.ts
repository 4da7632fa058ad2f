import type { Insertable, Kysely } from 'kysely';
import { BatchWriter, chunks } from '../store/batch-writer.js';
import type { SpillFile } from '../store/spill-file.js';
import type { AttemptsTable, DatabaseSchema, RequestsTable } from '../store/schema.js';
import type { RecordSink, RequestRecord } from './request-record.js';

export interface RecordWriterOptions {
  db: Kysely<DatabaseSchema>;
  /** Records per transaction; reaching it starts a write without waiting for the timer. */
  batchSize?: number;
  /** How long a record may wait in the buffer before a write starts. */
  flushIntervalMs?: number;
  /** Buffer bound while the store is failing; past it the oldest records are dropped. */
  maxBuffered?: number;
  /** Write failures and drop notices; the writer itself never throws on the request path. */
  onError?: (error: unknown) => void;
  /** Where records the store refused wait for it to come back (see `BatchWriter`). */
  spill?: SpillFile<RequestRecord>;
}

/** Rows per INSERT statement, well under SQLite's bound-parameter limit at any batch size. */
const ROWS_PER_STATEMENT = 100;

/**
 * Writes request records to the store in batches, off the request path (see `BatchWriter`): one
 * transaction per batch; inserts ignore rows that already exist, so a batch written twice is
 * stored once.
 */
export class RecordWriter implements RecordSink {
  private readonly writer: BatchWriter<RequestRecord>;

  constructor(options: RecordWriterOptions) {
    const { db, ...tuning } = options;
    this.writer = new BatchWriter<RequestRecord>({ ...tuning, name: 'RecordWriter', itemName: 'record', writeBatch: (batch) => writeRecords(db, batch) });
  }

  /** Records dropped because the buffer was full (or the writer closed); never reset. */
  get droppedCount(): number {
    return this.writer.droppedCount;
  }

  /** Records in the spill file, waiting for the store. */
  get spilledCount(): number {
    return this.writer.spilledCount;
  }

  /** Records waiting to be written. */
  get bufferedCount(): number {
    return this.writer.bufferedCount;
  }

  enqueue(record: RequestRecord): void {
    this.writer.enqueue(record);
  }

  flush(): Promise<void> {
    return this.writer.flush();
  }

  close(): Promise<void> {
    return this.writer.close();
  }
}

async function writeRecords(db: Kysely<DatabaseSchema>, batch: readonly RequestRecord[]): Promise<void> {
  const requestRows = batch.map(toRequestRow);
  const attemptRows = batch.flatMap(toAttemptRows);
  await db.transaction().execute(async (transaction) => {
    for (const rows of chunks(requestRows, ROWS_PER_STATEMENT)) {
      await transaction.insertInto('requests').values(rows).onConflict((conflict) => conflict.column('id').doNothing()).execute();
    }
    for (const rows of chunks(attemptRows, ROWS_PER_STATEMENT)) {
      await transaction.insertInto('attempts').values(rows).onConflict((conflict) => conflict.columns(['request_id', 'n']).doNothing()).execute();
    }
  });
}

function toRequestRow(record: RequestRecord): Insertable<RequestsTable> {
  const createdMs = Date.parse(record.created_at);
  return {
    id: record.id,
    created_at: record.created_at,
    // A malformed timestamp must not make the batch fail forever; file it under "now".
    created_ms: Number.isFinite(createdMs) ? createdMs : Date.now(),
    status: record.status,
    http_status: record.http_status,
    route: record.route,
    model_requested: record.model_requested,
    key_name: record.key_name,
    stream: record.stream ? 1 : 0,
    // Integer columns; the exact value stays in record_json.
    latency_ms: Math.round(record.latency_ms),
    record_json: JSON.stringify(record),
  };
}

function toAttemptRows(record: RequestRecord): Insertable<AttemptsTable>[] {
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

