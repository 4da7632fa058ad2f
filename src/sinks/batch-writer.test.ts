import { afterEach, describe, expect, it, vi } from 'vitest';
import { BatchWriter, chunks, type BatchWriterOptions } from './batch-writer.js';

/** A store that keeps what it is given and fails on demand. */
class FakeStore {
  batches: number[][] = [];
  failing = false;

  readonly writeBatch = async (batch: readonly number[]): Promise<void> => {
    if (this.failing) throw new Error('store unavailable (on purpose)');
    this.batches.push([...batch]);
  };

  get written(): number[] {
    return this.batches.flat();
  }
}

afterEach(() => {
  vi.useRealTimers();
});

function newWriter(store: FakeStore, options: Partial<BatchWriterOptions<number>> = {}): BatchWriter<number> {
  // A long interval by default, so only what a test does starts a write.
  return new BatchWriter<number>({ name: 'TestWriter', itemName: 'item', flushIntervalMs: 60_000, onError: () => undefined, writeBatch: store.writeBatch, ...options });
}

const range = (count: number, from = 0) => Array.from({ length: count }, (_, index) => from + index);

describe('BatchWriter', () => {
  it('only buffers on enqueue', () => {
    const store = new FakeStore();
    const writer = newWriter(store);
    for (const item of range(3)) writer.enqueue(item);
    expect(writer.bufferedCount).toBe(3);
    expect(store.batches).toEqual([]);
  });

  it('starts a write when a batch is full and writes a partial batch once the interval passes', async () => {
    vi.useFakeTimers();
    const store = new FakeStore();
    const writer = newWriter(store, { batchSize: 3, flushIntervalMs: 100 });
    for (const item of range(3)) writer.enqueue(item);
    await vi.advanceTimersByTimeAsync(0);
    expect(store.batches).toEqual([[0, 1, 2]]);
    writer.enqueue(3);
    await vi.advanceTimersByTimeAsync(99);
    expect(store.batches).toEqual([[0, 1, 2]]);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.batches).toEqual([[0, 1, 2], [3]]);
  });

  it('flush() writes everything enqueued before it, in order, batch by batch', async () => {
    const store = new FakeStore();
    const writer = newWriter(store, { batchSize: 2 });
    for (const item of range(5)) writer.enqueue(item);
    await writer.flush();
    expect(store.batches).toEqual([[0, 1], [2, 3], [4]]);
    expect(writer.bufferedCount).toBe(0);
  });

  it('keeps a failed batch in front, reports it, and retries with growing delays', async () => {
    vi.useFakeTimers();
    const store = new FakeStore();
    const errors: unknown[] = [];
    const writer = newWriter(store, { batchSize: 10, flushIntervalMs: 100, onError: (error) => errors.push(error) });
    store.failing = true;
    for (const item of range(3)) writer.enqueue(item);
    await expect(writer.flush()).rejects.toThrow('store unavailable');
    expect(writer.bufferedCount).toBe(3);
    expect(errors).toHaveLength(1);

    // One failure: the retry waits 2 × 100 ms; the second failure doubles it again.
    await vi.advanceTimersByTimeAsync(199);
    expect(errors).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(errors).toHaveLength(2);

    store.failing = false;
    writer.enqueue(3);
    await vi.advanceTimersByTimeAsync(399);
    expect(store.batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.written).toEqual([0, 1, 2, 3]);
    expect(writer.droppedCount).toBe(0);
  });

  it('after a long outage still retries at least every 4 s, so what waits is written within 5 s of the store coming back', async () => {
    vi.useFakeTimers();
    const store = new FakeStore();
    const writer = newWriter(store, { flushIntervalMs: 250 });
    store.failing = true;
    writer.enqueue(1);
    await expect(writer.flush()).rejects.toThrow('store unavailable');
    // Two minutes of failures: the backoff has long reached its ceiling.
    await vi.advanceTimersByTimeAsync(122_000);
    expect(store.written).toEqual([]);
    store.failing = false;
    await vi.advanceTimersByTimeAsync(4_000);
    expect(store.written).toEqual([1]);
  });

  it('does not start writes on full batches while the store is failing', async () => {
    const store = new FakeStore();
    let attempts = 0;
    const writer = newWriter(store, {
      batchSize: 2,
      writeBatch: async (batch) => {
        attempts++;
        await store.writeBatch(batch);
      },
    });
    store.failing = true;
    writer.enqueue(0);
    writer.enqueue(1);
    await expect(writer.flush()).rejects.toThrow();
    const attemptsAfterFailure = attempts;
    for (const item of range(6, 2)) writer.enqueue(item);
    await new Promise((resolve) => setImmediate(resolve));
    expect(attempts).toBe(attemptsAfterFailure);
  });

  it('drops the oldest items past maxBuffered, and counts and reports them', async () => {
    const store = new FakeStore();
    const errors: unknown[] = [];
    const writer = newWriter(store, { maxBuffered: 3, onError: (error) => errors.push(error) });
    for (const item of range(5)) writer.enqueue(item);
    expect(writer.droppedCount).toBe(2);
    await writer.flush();
    expect(store.written).toEqual([2, 3, 4]);
    expect(errors.map(String)).toEqual([expect.stringContaining('item buffer: dropped 2 item(s) (2 in total)')]);
  });

  it('close() writes what is pending; later items are dropped', async () => {
    const store = new FakeStore();
    const writer = newWriter(store, { flushIntervalMs: 5 });
    writer.enqueue(1);
    await writer.close();
    writer.enqueue(2);
    expect(store.written).toEqual([1]);
    expect(writer.droppedCount).toBe(1);
    expect(writer.bufferedCount).toBe(0);
  });

  it('refuses nonsensical sizes, naming the writer', () => {
    const store = new FakeStore();
    expect(() => newWriter(store, { batchSize: 0 })).toThrow('TestWriter: batchSize must be a positive integer (got 0)');
    expect(() => newWriter(store, { flushIntervalMs: 1.5 })).toThrow(RangeError);
    expect(() => newWriter(store, { maxBuffered: -1 })).toThrow(RangeError);
  });
});

describe('chunks', () => {
  it('splits into runs of at most the given size', () => {
    expect([...chunks([1, 2, 3, 4, 5], 2)]).toEqual([[1, 2], [3, 4], [5]]);
    expect([...chunks([], 2)]).toEqual([]);
  });
});
