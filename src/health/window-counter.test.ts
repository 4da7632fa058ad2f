import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WindowCounter } from './window-counter.js';

/**
 * The ring's count against a list of every event kept: an event counts when its bucket's age is
 * in the asked span and no later event took its slot (a later bucket a whole ring further on).
 */
function countedByList(eventBuckets: readonly number[], bucketCount: number, current: number, span: number, skip: number): number {
  const slotOf = (bucket: number) => ((bucket % bucketCount) + bucketCount) % bucketCount;
  return eventBuckets.filter((bucket, index) => {
    const age = current - bucket;
    const overwritten = eventBuckets.slice(index + 1).some((later) => later !== bucket && slotOf(later) === slotOf(bucket));
    return !overwritten && age >= skip && age < skip + span;
  }).length;
}

describe('WindowCounter', () => {
  it('counts what a list of every event counts, for any span and skip', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 5_000 }),
        fc.array(fc.integer({ min: 0, max: 20_000 }), { maxLength: 60 }),
        fc.integer({ min: 0, max: 50_000 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 40 }),
        (bucketCount, bucketMs, steps, wait, span, skip) => {
          const counter = new WindowCounter(bucketCount, bucketMs);
          // Events arrive in time order, as a deployment's responses do.
          let nowMs = 1_800_000_000_000;
          const buckets: number[] = [];
          for (const step of steps) {
            nowMs += step;
            counter.add(nowMs);
            buckets.push(Math.floor(nowMs / bucketMs));
          }
          nowMs += wait;
          const current = Math.floor(nowMs / bucketMs);
          expect(counter.count(nowMs, span, skip)).toBe(countedByList(buckets, bucketCount, current, span, skip));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('counts the whole ring by default, and nothing once cleared', () => {
    const counter = new WindowCounter(4, 1_000);
    for (const atMs of [0, 10, 1_500, 3_999]) counter.add(atMs);
    expect(counter.count(3_999)).toBe(4);
    expect(counter.count(4_000)).toBe(2);
    counter.clear();
    expect(counter.count(3_999)).toBe(0);
  });
});
