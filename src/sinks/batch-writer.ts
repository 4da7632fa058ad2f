import { Fifo } from './fifo.js';
import type { SpillFile } from './spill-file.js';

export interface BatchWriterOptions<T> {
  /**
   * Writes one batch, all or nothing (one transaction). It must tolerate items already written
   * (insert-or-ignore): a batch whose commit was lost in transit is written again.
   */
  writeBatch: (batch: readonly T[]) => Promise<void>;
  /** Who is writing, for error messages (`RecordWriter`, `LedgerWriter`). */
  name: string;
  /** What one item is called in drop notices (`record`, `spend row`). */
  itemName: string;
  /** Items per batch; reaching it starts a write without waiting for the timer. */
  batchSize?: number;
  /** How long an item may wait in the buffer before a write starts. */
  flushIntervalMs?: number;
  /** Buffer bound while the store is failing; past it the oldest items are dropped. */
  maxBuffered?: number;
  /** Write failures and drop notices; the writer itself never throws on the request path. */
  onError?: (error: unknown) => void;
  /**
   * Where batches the store refused go (docs/keys-and-budgets.md, store outage) instead of waiting in memory:
   * they are replayed, before anything newer, once the store takes writes again.
   */
  spill?: SpillFile<T>;
}

/**
 * Retries after failures back off up to this, so a dead store is not hammered or logged 4×/s;
 * short enough that what waits in the spill file is replayed within 5 s of the store's return.
 */
const MAX_RETRY_DELAY_MS = 4_000;

/**
 * Buffers items and writes them in batches, off the request path. `enqueue` only pushes into a
 * buffer; a timer or a full batch starts a write. A failed batch goes back to the front of the
 * buffer and is retried with exponential backoff, so a store outage loses nothing until the
 * buffer bound is reached. Writes run one at a time, in order.
 */
export class BatchWriter<T> {
  /** Items dropped because the buffer was full (or the writer closed); never reset. */
  droppedCount = 0;

  private readonly writeBatch: (batch: readonly T[]) => Promise<void>;
  private readonly itemName: string;
  private readonly batchSize: number;
  private readonly flushIntervalMs: number;
  private readonly maxBuffered: number;
  private readonly onError: (error: unknown) => void;
  private readonly spill: SpillFile<T> | undefined;
  private readonly queue = new Fifo<T>();
  /** Writes run one after another; each flush is chained onto the last. */
  private tail: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (epoch ms), so an earlier need can re-arm it sooner. */
  private timerDueAtMs = 0;
  private backgroundFlushQueued = false;
  private consecutiveFailures = 0;
  /** While the store is failing: when it is next tried (backed off), epoch ms. */
  private retryAtMs = 0;
  private reportedDropCount = 0;
  private closed = false;

  constructor(options: BatchWriterOptions<T>) {
    this.writeBatch = options.writeBatch;
    this.itemName = options.itemName;
    this.batchSize = positiveInteger(options.batchSize ?? 200, 'batchSize', options.name);
    this.flushIntervalMs = positiveInteger(options.flushIntervalMs ?? 250, 'flushIntervalMs', options.name);
    this.maxBuffered = positiveInteger(options.maxBuffered ?? 50_000, 'maxBuffered', options.name);
    // Not silent by default: a lost write should be visible even if nobody wired a logger.
    this.onError = options.onError ?? ((error) => process.emitWarning(error instanceof Error ? error : String(error)));
    this.spill = options.spill;
    // Items adopted from a process that is gone are replayed soon, traffic or not.
    this.spill?.onAdopted(() => this.armTimer());
    if (this.spill && this.spill.count > 0) this.flushInBackground();
  }

  /** Items in this process's spill files, waiting for the store to come back. */
  get spilledCount(): number {
    return this.spill?.count ?? 0;
  }

  /** Items waiting to be written. */
  get bufferedCount(): number {
    return this.queue.length;
  }

  /** O(1): never touches the store. */
  enqueue(item: T): void {
    if (this.closed) {
      this.droppedCount++;
      return;
    }
    if (this.queue.length >= this.maxBuffered) this.droppedCount += this.queue.dropOldest(1);
    this.queue.push(item);
    // While the store is failing, only the backed-off timer retries.
    if (this.queue.length >= this.batchSize && this.consecutiveFailures === 0) this.flushInBackground();
    else this.armTimer();
  }

  /**
   * Resolves when everything enqueued before the call is written; rejects with the write error
   * if the store failed (those items stay buffered and are retried).
   */
  flush(): Promise<void> {
    return this.chain(() => this.writePending());
  }

  /**
   * Stops the timer and writes what is buffered; later items are counted as dropped. With a
   * spill file, what the store will not take goes there, so a shutdown during an outage loses
   * nothing (and close resolves).
   */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    try {
      await this.flush();
    } catch (error) {
      const remaining = this.queue.take(this.queue.length);
      if (!this.spillBatch(remaining)) {
        this.queue.putBack(remaining);
        throw error;
      }
    }
  }

  private chain(work: () => Promise<void>): Promise<void> {
    const run = this.tail.then(work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private flushInBackground(): void {
    if (this.backgroundFlushQueued) return;
    this.backgroundFlushQueued = true;
    // Failures were already reported through onError; the items stay buffered.
    this.chain(() => {
      this.backgroundFlushQueued = false;
      return this.writePending();
    }).catch(() => undefined);
  }

  /**
   * Makes sure a timer fires when there is something to do: a batch to write (after the flush
   * interval), a store to retry (backed off while it fails), or — while it fails, with a spill
   * file — new items to spill after the flush interval, so they never wait in memory for the
   * retry (a crash loses at most one interval's items, outage or not).
   */
  private armTimer(): void {
    if (this.closed || (this.queue.length === 0 && this.spilledCount === 0)) return;
    const nowMs = Date.now();
    const retryInMs = Math.max(0, this.retryAtMs - nowMs);
    let delayMs = this.flushIntervalMs;
    if (this.failing) delayMs = this.spill && this.queue.length > 0 ? Math.min(this.flushIntervalMs, retryInMs) : retryInMs;
    if (this.timer && this.timerDueAtMs <= nowMs + delayMs) return;
    clearTimeout(this.timer);
    this.timerDueAtMs = nowMs + delayMs;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.failing && Date.now() < this.retryAtMs) {
        this.spillQueued();
        this.armTimer();
      } else {
        this.flushInBackground();
      }
    }, delayMs);
    this.timer.unref();
  }

  private get failing(): boolean {
    return this.consecutiveFailures > 0;
  }

  /** During an outage: what arrived since the last tick goes to the spill file without trying the store. */
  private spillQueued(): void {
    const arrived = this.queue.take(this.queue.length);
    if (!this.spillBatch(arrived)) this.queue.putBack(arrived);
  }

  /** Writes the items buffered now (not ones that arrive meanwhile), one batch at a time. */
  private async writePending(): Promise<void> {
    this.reportDrops();
    await this.replaySpill();
    let remaining = this.queue.length;
    while (remaining > 0) {
      const batch = this.queue.take(Math.min(this.batchSize, remaining));
      if (batch.length === 0) break;
      remaining -= batch.length;
      try {
        await this.writeBatch(batch);
      } catch (error) {
        // With a spill file nothing waits in memory during an outage: the rest goes there too.
        const refused = [...batch, ...this.queue.take(this.queue.length)];
        if (!this.spillBatch(refused)) {
          this.queue.putBack(refused);
          const excess = this.queue.length - this.maxBuffered;
          if (excess > 0) this.droppedCount += this.queue.dropOldest(excess);
        }
        this.failed(error);
        throw error;
      }
    }
    this.consecutiveFailures = 0;
    this.armTimer();
  }

  /**
   * Items the store refused before are written first, in their order. Each round claims what the
   * file holds (items spilled while it is written wait in a new file for the next round) and
   * releases it once all are in, so a spill during a replay is never deleted unwritten.
   */
  private async replaySpill(): Promise<void> {
    if (!this.spill) return;
    try {
      for (let claimed = this.spill.claim(); claimed.length > 0; claimed = this.spill.claim()) {
        for (const batch of chunks(claimed, this.batchSize)) await this.writeBatch(batch);
        this.spill.release();
        // The store takes writes again: new items wait for it in memory, not in the file.
        this.consecutiveFailures = 0;
      }
    } catch (error) {
      // Still down: what arrived meanwhile joins the file rather than waiting in memory.
      this.spillQueued();
      this.failed(error);
      throw error;
    }
  }

  /** Appends a refused batch to the spill file; false when there is none (or it cannot be written). */
  private spillBatch(batch: readonly T[]): boolean {
    if (!this.spill) return false;
    try {
      this.spill.append(batch);
      return true;
    } catch (error) {
      this.onError(error);
      return false;
    }
  }

  private failed(error: unknown): void {
    this.consecutiveFailures++;
    this.retryAtMs = Date.now() + Math.min(this.flushIntervalMs * 2 ** this.consecutiveFailures, MAX_RETRY_DELAY_MS);
    this.onError(error);
    // A timer armed before the failure would retry at the normal interval: back off instead.
    clearTimeout(this.timer);
    this.timer = undefined;
    this.armTimer();
  }

  private reportDrops(): void {
    if (this.droppedCount === this.reportedDropCount) return;
    const newlyDropped = this.droppedCount - this.reportedDropCount;
    this.reportedDropCount = this.droppedCount;
    this.onError(new Error(`${this.itemName} buffer: dropped ${newlyDropped} ${this.itemName}(s) (${this.droppedCount} in total) that could not be written`));
  }
}

/** Splits spilled items into batches of the usual size. */
export function* chunks<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let start = 0; start < items.length; start += size) yield items.slice(start, start + size);
}

function positiveInteger(value: number, option: string, name: string): number {
  if (!Number.isInteger(value) || value <= 0) throw new RangeError(`${name}: ${option} must be a positive integer (got ${value})`);
  return value;
}
