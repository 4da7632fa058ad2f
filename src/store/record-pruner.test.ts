import { afterEach, describe, expect, it, vi } from 'vitest';
import { RecordPruner } from './record-pruner.js';

const DAY_MS = 86_400_000;

/** A store of records by creation time that deletes the oldest first, as the real one does. */
function fakeStore(createdMs: number[]) {
  const store = {
    createdMs: [...createdMs].sort((left, right) => left - right),
    passes: [] as { olderThanMs: number; limit: number }[],
    failing: false,
    prune: async (options: { olderThanMs: number; limit: number }) => {
      store.passes.push(options);
      if (store.failing) throw new Error('store down (on purpose)');
      const expired = store.createdMs.filter((created) => created < options.olderThanMs).slice(0, options.limit);
      store.createdMs = store.createdMs.slice(expired.length);
      return expired.length;
    },
  };
  return store;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('RecordPruner', () => {
  it('works off a backlog in small batches, quickly, then settles to the idle interval', async () => {
    vi.useFakeTimers();
    const nowMs = Date.now();
    const store = fakeStore([...Array.from({ length: 25 }, (_, index) => nowMs - 40 * DAY_MS + index), nowMs - DAY_MS]);
    const pruned: number[] = [];
    const pruner = new RecordPruner({ prune: store.prune, retentionDays: 30, batchSize: 10, backlogIntervalMs: 50, idleIntervalMs: 60_000, onPruned: (count) => pruned.push(count) });
    pruner.start();
    const caughtUp = pruner.whenCaughtUp();
    await vi.advanceTimersByTimeAsync(0);
    expect(pruned).toEqual([10]);
    await vi.advanceTimersByTimeAsync(100);
    await caughtUp;
    expect(pruned).toEqual([10, 10, 5]);
    expect(store.createdMs).toEqual([nowMs - DAY_MS]);
    expect(store.passes.every((pass) => pass.limit === 10 && pass.olderThanMs <= Date.now() - 30 * DAY_MS)).toBe(true);
    // Caught up: the next pass waits for the idle interval.
    const passes = store.passes.length;
    await vi.advanceTimersByTimeAsync(59_999);
    expect(store.passes).toHaveLength(passes);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.passes).toHaveLength(passes + 1);
    await pruner.stop();
  });

  it('a failed pass is reported and tried again later, not in a loop', async () => {
    vi.useFakeTimers();
    const store = fakeStore([Date.now() - 40 * DAY_MS]);
    store.failing = true;
    const errors: unknown[] = [];
    const pruner = new RecordPruner({ prune: store.prune, retentionDays: 30, idleIntervalMs: 1_000, onError: (error) => errors.push(error) });
    pruner.start();
    await vi.advanceTimersByTimeAsync(999);
    expect(errors).toHaveLength(1);
    store.failing = false;
    await vi.advanceTimersByTimeAsync(1);
    expect(store.createdMs).toEqual([]);
    await pruner.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(store.passes).toHaveLength(2);
  });
});
