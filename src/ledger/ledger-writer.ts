import { BatchWriter } from '../sinks/batch-writer.js';
import type { SpillFile } from '../sinks/spill-file.js';
import type { SpendRow } from '../core/spend-row.js';

export interface LedgerWriterOptions {
  /** Stores rows in one transaction, insert-or-ignore (`SqliteInserts`, here or on the store thread). */
  insert: (rows: readonly SpendRow[]) => Promise<void>;
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

/** Writes spend rows to the `spend` table in batches, off the request path (see `BatchWriter`). */
export class LedgerWriter {
  private readonly writer: BatchWriter<SpendRow>;

  constructor(options: LedgerWriterOptions) {
    const { insert, ...tuning } = options;
    this.writer = new BatchWriter<SpendRow>({ ...tuning, name: 'LedgerWriter', itemName: 'spend row', writeBatch: insert });
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
