import { appendFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatchWriter } from './batch-writer.js';
import { SpillFile } from './spill-file.js';

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'switchyard-spill-'));
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

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

function writerOver(store: ReturnType<typeof fakeStore>, path: string) {
  return new BatchWriter<{ id: number }>({
    name: 'TestWriter',
    itemName: 'item',
    flushIntervalMs: 60_000,
    onError: () => undefined,
    writeBatch: store.writeBatch,
    spill: new SpillFile(path),
  });
}

/**
 * Moves the fake clock on until `work` settles. Flushes queued behind slow writes and backed-off
 * retries can need more fake time than any fixed step gives, and a promise awaited while nothing
 * moves the clock never settles; false when a minute of fake time was not enough (a real hang).
 */
async function settledInFakeTime(work: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void work.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let waitedMs = 0; !settled && waitedMs < 60_000; waitedMs += 50) await vi.advanceTimersByTimeAsync(50);
  return settled;
}

describe('BatchWriter with a spill file', () => {
  it('refused items go to the file, not memory, and are written first once the store is back', async () => {
    const store = fakeStore();
    const writer = writerOver(store, join(directory, 'spill.jsonl'));
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
    const path = join(directory, 'spill.jsonl');
    const store = fakeStore();
    const first = writerOver(store, path);
    for (let id = 1; id <= 3; id++) first.enqueue({ id });
    store.failing = true;
    await first.close();
    expect(new SpillFile(path).count).toBe(3);
    store.failing = false;
    // A replay that already partly landed (a crash between writing and clearing) duplicates nothing.
    store.stored.set(1, { id: 1 });
    const second = writerOver(store, path);
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
      spill: new SpillFile(join(directory, 'spill.jsonl')),
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
      spill: new SpillFile(join(directory, 'spill.jsonl')),
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
        const path = join(directory, `property-${run++}.jsonl`);
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
        let writer = new BatchWriter<{ id: number }>({ ...options, spill: new SpillFile(path) });
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
              // A graceful restart: close spills what the store will not take; the next run replays it.
              expect(await settledInFakeTime(writer.close().catch(() => undefined))).toBe(true);
              writer = new BatchWriter<{ id: number }>({ ...options, spill: new SpillFile(path) });
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

  it('a torn last line from a crash mid-append is skipped', () => {
    const spill = new SpillFile<{ id: number }>(join(directory, 'spill.jsonl'));
    spill.append([{ id: 1 }]);
    appendFileSync(spill.path, '{"id": 2');
    expect(spill.read()).toEqual([{ id: 1 }]);
  });
});

describe('SpillFile', () => {
  it('a replay claims the file: items appended meanwhile stay for the next claim, and a crash mid-replay replays the claimed items first', () => {
    const path = join(directory, 'spill.jsonl');
    const spill = new SpillFile<{ id: number }>(path);
    spill.append([{ id: 1 }, { id: 2 }]);
    expect(spill.claim()).toEqual([{ id: 1 }, { id: 2 }]);
    spill.append([{ id: 3 }]);
    expect(spill.count).toBe(3);
    // The process dies before release: the next run sees both files, claimed items first.
    const afterCrash = new SpillFile<{ id: number }>(path);
    expect(afterCrash.count).toBe(3);
    expect(afterCrash.read()).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect(afterCrash.claim()).toEqual([{ id: 1 }, { id: 2 }]);
    afterCrash.release();
    expect(afterCrash.count).toBe(1);
    expect(afterCrash.claim()).toEqual([{ id: 3 }]);
    afterCrash.release();
    expect(afterCrash.claim()).toEqual([]);
    expect(afterCrash.count).toBe(0);
    expect(existsSync(path)).toBe(false);
    expect(existsSync(`${path}.replaying`)).toBe(false);
  });

  it('an item appended after a line torn by a crash is read whole', () => {
    const path = join(directory, 'spill.jsonl');
    writeFileSync(path, '{"id": 1}\n{"id": 2');
    const spill = new SpillFile<{ id: number }>(path);
    spill.append([{ id: 3 }]);
    expect(spill.read()).toEqual([{ id: 1 }, { id: 3 }]);
    expect(new SpillFile(path).count).toBe(2);
  });

  it('removes a file that holds nothing to replay, and counts only whole items', () => {
    const path = join(directory, 'spill.jsonl');
    writeFileSync(path, '');
    expect(new SpillFile(path).count).toBe(0);
    expect(existsSync(path)).toBe(false);
    writeFileSync(path, '{"id": 1}\n{"id": 2');
    expect(new SpillFile(path).count).toBe(1);
    writeFileSync(path, '{"id": 2');
    expect(new SpillFile(path).count).toBe(0);
    expect(existsSync(path)).toBe(false);
  });
});
