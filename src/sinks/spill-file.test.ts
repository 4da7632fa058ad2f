import { appendFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  it('a torn last line from a crash mid-append is skipped', () => {
    const spill = new SpillFile<{ id: number }>(join(directory, 'spill.jsonl'));
    spill.append([{ id: 1 }]);
    appendFileSync(spill.path, '{"id": 2');
    expect(spill.read()).toEqual([{ id: 1 }]);
  });
});

describe('SpillFile', () => {
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
