import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { settledInFakeTime } from '../../test/support/fake-time.js';
import { BatchWriter } from './batch-writer.js';
import { SpillDirectory } from './spill-directory.js';
import type { SpillFile } from './spill-file.js';

let directory: string;
/** Every spill directory a test opened, closed after it (their locks let go). */
const opened: SpillDirectory[] = [];
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'switchyard-spill-'));
});
afterEach(() => {
  for (const spill of opened.splice(0)) spill.close();
  rmSync(directory, { recursive: true, force: true });
});

/** A process's spill files in the test's directory (`prefix` apart, so runs of a property test do not meet). */
function processSpill(instanceId: string, prefix = 'test'): SpillDirectory {
  const spill = new SpillDirectory({ directory, prefix }, { instanceId });
  opened.push(spill);
  return spill;
}

/** A fresh process's records spill file, with what gone processes left adopted, as a gateway starts. */
function startedSpill(instanceId: string, prefix = 'test'): SpillFile<{ id: number }> {
  const spill = processSpill(instanceId, prefix);
  const file = spill.file<{ id: number }>('records');
  spill.adoptOrphans({ sweepLocks: true });
  return file;
}

/** A store that keeps items by id (insert-or-ignore) and can be made to fail. */
function fakeStore() {
  const stored = new Map<number, { id: number }>();
  const store = {
    failing: false,
    attempts: 0,
    stored,
    writeBatch: async (batch: readonly { id: number }[]) => {
      store.attempts++;
      if (store.failing) throw new Error('store down (on purpose)');
      for (const item of batch) if (!stored.has(item.id)) stored.set(item.id, item);
    },
  };
  return store;
}

function writerOver(store: ReturnType<typeof fakeStore>, spill: SpillFile<{ id: number }>) {
  return new BatchWriter<{ id: number }>({
    name: 'TestWriter',
    itemName: 'item',
    flushIntervalMs: 60_000,
    onError: () => undefined,
    writeBatch: store.writeBatch,
    spill,
  });
}

describe('BatchWriter with a spill file', () => {
  it('refused items go to the file, not memory, and are written first once the store is back', async () => {
    const store = fakeStore();
    const writer = writerOver(store, startedSpill('a'));
    store.failing = true;
    for (let id = 1; id <= 5; id++) writer.enqueue({ id });
    await expect(writer.flush()).rejects.toThrow('store down');
    expect(writer.spilledCount).toBe(5);
    expect(writer.bufferedCount).toBe(0);
    writer.enqueue({ id: 6 });
    await expect(writer.flush()).rejects.toThrow('store down');
    expect(writer.spilledCount).toBe(6);
    store.failing = false;
    await writer.flush();
    expect([...store.stored.keys()]).toEqual([1, 2, 3, 4, 5, 6]);
    expect(writer.spilledCount).toBe(0);
    await writer.close();
  });

  it('a shutdown during an outage spills what is buffered, and the next run replays it exactly once', async () => {
    const store = fakeStore();
    const firstSpill = processSpill('first');
    const first = writerOver(store, firstSpill.file('records'));
    for (let id = 1; id <= 3; id++) first.enqueue({ id });
    store.failing = true;
    await first.close();
    firstSpill.close();
    store.failing = false;
    // A replay that already partly landed (a crash between writing and clearing) duplicates nothing.
    store.stored.set(1, { id: 1 });
    const secondSpill = startedSpill('second');
    expect(secondSpill.count).toBe(3);
    const second = writerOver(store, secondSpill);
    await second.flush();
    expect([...store.stored.keys()].sort()).toEqual([1, 2, 3]);
    expect(second.spilledCount).toBe(0);
    await second.close();
  });

  it('items arriving while the store is failing reach the spill file within one flush interval, not after the backed-off retry', async () => {
    vi.useFakeTimers();
    const store = fakeStore();
    const writer = new BatchWriter<{ id: number }>({
      name: 'TestWriter',
      itemName: 'item',
      flushIntervalMs: 100,
      onError: () => undefined,
      writeBatch: store.writeBatch,
      spill: startedSpill('a'),
    });
    store.failing = true;
    writer.enqueue({ id: 1 });
    await vi.advanceTimersByTimeAsync(100);
    expect(writer.spilledCount).toBe(1);
    // Three failures back the retry off to 800 ms; spilling keeps to the flush interval.
    await expect(writer.flush()).rejects.toThrow();
    await expect(writer.flush()).rejects.toThrow();
    const attempts = store.attempts;
    writer.enqueue({ id: 2 });
    await vi.advanceTimersByTimeAsync(100);
    expect(writer.spilledCount).toBe(2);
    expect(writer.bufferedCount).toBe(0);
    expect(store.attempts).toBe(attempts);
    store.failing = false;
    await vi.advanceTimersByTimeAsync(800);
    expect([...store.stored.keys()]).toEqual([1, 2]);
    expect(writer.spilledCount).toBe(0);
    vi.useRealTimers();
    await writer.close();
  });

  it('items spilled while a replay awaits the store are kept, not deleted with the replayed file', async () => {
    vi.useFakeTimers();
    const store = fakeStore();
    let openGate = () => undefined as void;
    let gate: Promise<void> | undefined;
    const writer = new BatchWriter<{ id: number }>({
      name: 'TestWriter',
      itemName: 'item',
      flushIntervalMs: 100,
      onError: () => undefined,
      writeBatch: async (batch) => {
        await gate;
        await store.writeBatch(batch);
      },
      spill: startedSpill('a'),
    });
    store.failing = true;
    for (let id = 1; id <= 3; id++) writer.enqueue({ id });
    await expect(writer.flush()).rejects.toThrow('store down');
    expect(writer.spilledCount).toBe(3);

    // The store is back but slow; an explicit flush (a spend read, the admin list) starts the
    // replay before the backed-off retry is due, so the timer still spills what arrives meanwhile.
    store.failing = false;
    gate = new Promise<void>((resolve) => (openGate = resolve));
    const replay = writer.flush();
    writer.enqueue({ id: 4 });
    await vi.advanceTimersByTimeAsync(100);
    expect(writer.bufferedCount).toBe(0);
    expect(writer.spilledCount).toBe(4);
    openGate();
    await replay;
    await writer.flush();
    expect([...store.stored.keys()]).toEqual([1, 2, 3, 4]);
    expect(writer.spilledCount).toBe(0);
    vi.useRealTimers();
    await writer.close();
  });

  it('whatever the order of outages, slow writes, flushes and timer ticks, every item enqueued is stored once the store is back', async () => {
    const step = fc.oneof(
      fc.record({ op: fc.constant('enqueue' as const), count: fc.integer({ min: 1, max: 7 }) }),
      fc.record({ op: fc.constant('store' as const), failing: fc.boolean(), slow: fc.boolean() }),
      fc.record({ op: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 900 }) }),
      fc.record({ op: fc.constant('flush' as const) }),
      fc.record({ op: fc.constant('restart' as const) }),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
        vi.useFakeTimers();
        const prefix = `property-${run++}`;
        let generation = 0;
        const store = fakeStore();
        let slow = false;
        const options = {
          name: 'TestWriter',
          itemName: 'item',
          batchSize: 4,
          flushIntervalMs: 100,
          onError: () => undefined,
          // A slow write resolves only after 150 ms of (fake) time: ticks and flushes overlap it.
          writeBatch: async (batch: readonly { id: number }[]) => {
            if (slow) await new Promise((resolve) => setTimeout(resolve, 150));
            await store.writeBatch(batch);
          },
        };
        let writer = new BatchWriter<{ id: number }>({ ...options, spill: startedSpill(`run-${generation++}`, prefix) });
        const pending: Promise<void>[] = [];
        let nextId = 1;
        try {
          for (const action of steps) {
            if (action.op === 'enqueue') for (let index = 0; index < action.count; index++) writer.enqueue({ id: nextId++ });
            else if (action.op === 'store') {
              store.failing = action.failing;
              slow = action.slow;
            } else if (action.op === 'tick') await vi.advanceTimersByTimeAsync(action.ms);
            else if (action.op === 'flush') pending.push(writer.flush().catch(() => undefined));
            else {
              // A graceful restart: close spills what the store will not take; the next run adopts and replays it.
              expect(await settledInFakeTime(writer.close().catch(() => undefined))).toBe(true);
              opened.pop()!.close();
              writer = new BatchWriter<{ id: number }>({ ...options, spill: startedSpill(`run-${generation++}`, prefix) });
            }
            // Lets what the step started (a flush, a write) run up to its next wait.
            await vi.advanceTimersByTimeAsync(0);
          }
          store.failing = false;
          slow = false;
          await vi.advanceTimersByTimeAsync(10_000);
          expect(await settledInFakeTime(Promise.all(pending))).toBe(true);
          const flushing = writer.flush();
          expect(await settledInFakeTime(flushing)).toBe(true);
          await flushing;
          const expected = Array.from({ length: nextId - 1 }, (_, index) => index + 1);
          expect([...store.stored.keys()].sort((a, b) => a - b)).toEqual(expected);
          expect(writer.spilledCount).toBe(0);
          expect(writer.droppedCount).toBe(0);
        } finally {
          vi.useRealTimers();
          await writer.close().catch(() => undefined);
        }
      }),
      { numRuns: 600 },
    );
  });

});

describe('SpillFile', () => {
  it('a replay claims the file: items appended meanwhile stay for the next claim, and a crash mid-replay leaves the claimed items to replay first', () => {
    const spill = startedSpill('a');
    spill.append([{ id: 1 }, { id: 2 }]);
    expect(spill.claim()).toEqual([{ id: 1 }, { id: 2 }]);
    spill.append([{ id: 3 }]);
    expect(spill.count).toBe(3);
    // The claim is not released (a crash): it is handed out again, before what was appended since.
    expect(spill.claim()).toEqual([{ id: 1 }, { id: 2 }]);
    spill.release();
    expect(spill.count).toBe(1);
    expect(spill.claim()).toEqual([{ id: 3 }]);
    spill.release();
    expect(spill.claim()).toEqual([]);
    expect(spill.count).toBe(0);
    // Nothing left behind but the lock, which goes with the process.
    expect(readdirSync(directory)).toEqual(['test.spill.a.lock']);
  });

  it('a line torn by a crash mid-append is skipped when the file is adopted, and a file with nothing whole is removed', () => {
    appendFileSync(join(directory, 'test.spill-records.gone-1.jsonl'), '{"id": 1}\n{"id": 2');
    appendFileSync(join(directory, 'test.spill-records.gone-2.jsonl'), '{"id": 3');
    const spill = startedSpill('a');
    expect(spill.count).toBe(1);
    expect(spill.claim()).toEqual([{ id: 1 }]);
    spill.release();
    expect(readdirSync(directory)).toEqual(['test.spill.a.lock']);
  });
});
