import { BatchWriter } from '../sinks/batch-writer.js';
import type { SpillFile } from '../sinks/spill-file.js';
import type { RecordSink, RequestRecord } from '../core/request-record.js';

export interface RecordWriterOptions {
  /** Stores one batch in one transaction, insert-or-ignore (`SqliteInserts`, here or on the store thread). */
  insert: (batch: readonly RequestRecord[]) => Promise<void>;
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

/** Writes request records to the store in batches, off the request path (see `BatchWriter`). */
export class RecordWriter implements RecordSink {
  private readonly writer: BatchWriter<RequestRecord>;

  constructor(options: RecordWriterOptions) {
    const { insert, ...tuning } = options;
    this.writer = new BatchWriter<RequestRecord>({ ...tuning, name: 'RecordWriter', itemName: 'record', writeBatch: insert });
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
