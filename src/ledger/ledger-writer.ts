import type { Insertable, Kysely } from 'kysely';
import { BatchWriter, chunks } from '../store/batch-writer.js';
import type { SpillFile } from '../store/spill-file.js';
import type { DatabaseSchema, SpendTable } from '../store/schema.js';
import type { SpendRow } from './spend-row.js';

export interface LedgerWriterOptions {
  db: Kysely<DatabaseSchema>;
  /** Rows per transaction; reaching it starts a write without waiting for the timer. */
  batchSize?: number;
  /** How long a row may wait in the buffer before a write starts. */
  flushIntervalMs?: number;
  /** Buffer bound while the store is failing; past it the oldest rows are dropped (and counted). */
  maxBuffered?: number;
  /** Write failures and drop notices; enqueueing never throws. */
  onError?: (error: unknown) => void;
  /** Where rows the store refused wait for it to come back (see `BatchWriter`). */
  spill?: SpillFile<SpendRow>;
}

/** 17 columns × 100 rows stays well under SQLite's bound-parameter limit. */
const ROWS_PER_STATEMENT = 100;

/**
 * Writes spend rows to the `spend` table in batches, off the request path. Inserts ignore rows
 * whose (request id, attempt number) is already stored, so a retried or replayed batch never
 * counts a cost twice.
 */
export class LedgerWriter {
  private readonly writer: BatchWriter<SpendRow>;

  constructor(options: LedgerWriterOptions) {
    const { db, ...tuning } = options;
    this.writer = new BatchWriter<SpendRow>({ ...tuning, name: 'LedgerWriter', itemName: 'spend row', writeBatch: (rows) => insertSpendRows(db, rows) });
  }

  /** Rows in the spill file, waiting for the store. */
  get spilledCount(): number {
    return this.writer.spilledCount;
  }

  /** Rows waiting to be written. */
  get bufferedCount(): number {
    return this.writer.bufferedCount;
  }

  /** Rows dropped because the buffer was full or the writer was closed; never reset. */
  get droppedCount(): number {
    return this.writer.droppedCount;
  }

  /** Synchronous and cheap: the database is not touched here. */
  enqueue(rows: readonly SpendRow[]): void {
    for (const row of rows) this.writer.enqueue(row);
  }

  /** Resolves once every row enqueued before the call is stored; rejects if the store failed. */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  /** Writes what is buffered; rows enqueued afterwards are dropped and counted. */
  close(): Promise<void> {
    return this.writer.close();
  }
}

async function insertSpendRows(db: Kysely<DatabaseSchema>, rows: readonly SpendRow[]): Promise<void> {
  const values = rows.map(toSpendTableRow);
  await db.transaction().execute(async (transaction) => {
    for (const chunk of chunks(values, ROWS_PER_STATEMENT)) {
      await transaction
        .insertInto('spend')
        .values(chunk)
        .onConflict((conflict) => conflict.columns(['request_id', 'attempt_n']).doNothing())
        .execute();
    }
  });
}

function toSpendTableRow(row: SpendRow): Insertable<SpendTable> {
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
    cost_micros: row.costMicros,
    estimated: row.estimated ? 1 : 0,
    priced: row.priced ? 1 : 0,
    probe: row.probe ? 1 : 0,
    created_ms: row.createdMs,
  };
}
