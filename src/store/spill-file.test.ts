import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
    stored,
    writeBatch: async (batch: readonly { id: number }[]) => {
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

  it('a torn last line from a crash mid-append is skipped', () => {
    const spill = new SpillFile<{ id: number }>(join(directory, 'spill.jsonl'));
    spill.append([{ id: 1 }]);
    appendFileSync(spill.path, '{"id": 2');
    expect(spill.read()).toEqual([{ id: 1 }]);
  });
});
