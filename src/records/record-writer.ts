import type { Insertable, Kysely } from 'kysely';
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
}

/** Retries after failures back off up to this, so a dead store is not hammered or logged 4×/s. */
const MAX_RETRY_DELAY_MS = 30_000;
/** Rows per INSERT statement, well under SQLite's bound-parameter limit at any batch size. */
const ROWS_PER_STATEMENT = 100;

/**
 * Writes request records to the store in batches, off the request path. `enqueue` only pushes
 * into a buffer; a timer or a full batch starts a write, one transaction per batch. A failed
 * batch goes back to the front of the buffer and is retried; inserts ignore rows that already
 * exist, so a batch that is written twice is stored once.
 */
export class RecordWriter implements RecordSink {
  /** Records dropped because the buffer was full (or the writer closed); never reset. */
  droppedCount = 0;

  private readonly db: Kysely<DatabaseSchema>;
  private readonly batchSize: number;
  private readonly flushIntervalMs: number;
  private readonly maxBuffered: number;
  private readonly onError: (error: unknown) => void;
  private readonly queue = new RecordQueue();
  /** Writes run one after another; each flush is chained onto the last. */
  private tail: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private backgroundFlushQueued = false;
  private consecutiveFailures = 0;
  private reportedDropCount = 0;
  private closed = false;

  constructor(options: RecordWriterOptions) {
    this.db = options.db;
    this.batchSize = positiveInteger(options.batchSize ?? 200, 'batchSize');
    this.flushIntervalMs = positiveInteger(options.flushIntervalMs ?? 250, 'flushIntervalMs');
    this.maxBuffered = positiveInteger(options.maxBuffered ?? 50_000, 'maxBuffered');
    // Not silent by default: a lost write should be visible even if nobody wired a logger.
    this.onError = options.onError ?? ((error) => process.emitWarning(error instanceof Error ? error : String(error)));
  }

  /** Records waiting to be written. */
  get bufferedCount(): number {
    return this.queue.length;
  }

  enqueue(record: RequestRecord): void {
    if (this.closed) {
      this.droppedCount++;
      return;
    }
    if (this.queue.length >= this.maxBuffered) this.droppedCount += this.queue.dropOldest(1);
    this.queue.push(record);
    // While the store is failing, only the backed-off timer retries.
    if (this.queue.length >= this.batchSize && this.consecutiveFailures === 0) this.flushInBackground();
    else this.armTimer();
  }

  /**
   * Resolves when everything enqueued before the call is written; rejects with the write error
   * if the store failed (those records stay buffered and are retried).
   */
  flush(): Promise<void> {
    return this.chain(() => this.writePending());
  }

  /** Stops the timer and writes what is buffered; later records are counted as dropped. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private chain(work: () => Promise<void>): Promise<void> {
    const run = this.tail.then(work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private flushInBackground(): void {
    if (this.backgroundFlushQueued) return;
    this.backgroundFlushQueued = true;
    // Failures were already reported through onError; the records stay buffered.
    this.chain(() => {
      this.backgroundFlushQueued = false;
      return this.writePending();
    }).catch(() => undefined);
  }

  private armTimer(): void {
    if (this.timer || this.closed || this.queue.length === 0) return;
    const delayMs = this.consecutiveFailures === 0 ? this.flushIntervalMs : Math.min(this.flushIntervalMs * 2 ** this.consecutiveFailures, MAX_RETRY_DELAY_MS);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flushInBackground();
    }, delayMs);
    this.timer.unref();
  }

  /** Writes the records buffered now (not ones that arrive meanwhile), one batch at a time. */
  private async writePending(): Promise<void> {
    this.reportDrops();
    let remaining = this.queue.length;
    while (remaining > 0) {
      const batch = this.queue.take(Math.min(this.batchSize, remaining));
      if (batch.length === 0) break;
      remaining -= batch.length;
      try {
        await this.writeBatch(batch);
      } catch (error) {
        this.queue.putBack(batch);
        const excess = this.queue.length - this.maxBuffered;
        if (excess > 0) this.droppedCount += this.queue.dropOldest(excess);
        this.consecutiveFailures++;
        this.onError(error);
        this.armTimer();
        throw error;
      }
    }
    this.consecutiveFailures = 0;
    this.armTimer();
  }

  private reportDrops(): void {
    if (this.droppedCount === this.reportedDropCount) return;
    const newlyDropped = this.droppedCount - this.reportedDropCount;
    this.reportedDropCount = this.droppedCount;
    this.onError(new Error(`record buffer: dropped ${newlyDropped} record(s) (${this.droppedCount} in total) that could not be written`));
  }

  private async writeBatch(batch: readonly RequestRecord[]): Promise<void> {
    const requestRows = batch.map(toRequestRow);
    const attemptRows = batch.flatMap(toAttemptRows);
    await this.db.transaction().execute(async (transaction) => {
      for (const rows of chunks(requestRows, ROWS_PER_STATEMENT)) {
        await transaction.insertInto('requests').values(rows).onConflict((conflict) => conflict.column('id').doNothing()).execute();
      }
      for (const rows of chunks(attemptRows, ROWS_PER_STATEMENT)) {
        await transaction.insertInto('attempts').values(rows).onConflict((conflict) => conflict.columns(['request_id', 'n']).doNothing()).execute();
      }
    });
  }
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

function* chunks<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let start = 0; start < items.length; start += size) yield items.slice(start, start + size);
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value <= 0) throw new RangeError(`RecordWriter: ${name} must be a positive integer (got ${value})`);
  return value;
}

/**
 * A FIFO with amortised O(1) push and shift (an array plus a head index, compacted once half of
 * it is consumed), so neither enqueue nor dropping the oldest copies the whole buffer.
 */
class RecordQueue {
  private items: RequestRecord[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(record: RequestRecord): void {
    this.items.push(record);
  }

  take(count: number): RequestRecord[] {
    const taken = this.items.slice(this.head, this.head + count);
    this.head += taken.length;
    this.compact();
    return taken;
  }

  /** Returns how many were dropped. */
  dropOldest(count: number): number {
    const dropped = Math.min(count, this.length);
    this.head += dropped;
    this.compact();
    return dropped;
  }

  /** Puts records back in front (a failed batch), keeping their order. */
  putBack(records: readonly RequestRecord[]): void {
    this.items = [...records, ...this.items.slice(this.head)];
    this.head = 0;
  }

  private compact(): void {
    if (this.head * 2 < this.items.length) return;
    this.items = this.items.slice(this.head);
    this.head = 0;
  }
}
