import { describe, expect, it } from 'vitest';
import { percentileOfHistogram } from './percentile-of-histogram.js';

describe('percentileOfHistogram', () => {
  it('is null for an empty histogram', () => {
    expect(percentileOfHistogram([], 0.5)).toBeNull();
    expect(percentileOfHistogram([{ value: 3, count: 0 }], 0.5)).toBeNull();
  });

  it('takes the bin holding the nearest-rank observation, whatever order the bins come in', () => {
    const bins = [
      { value: 10, count: 1 },
      { value: 1, count: 49 },
      { value: 2, count: 50 },
    ];
    expect(percentileOfHistogram(bins, 0.49)).toBe(1);
    expect(percentileOfHistogram(bins, 0.5)).toBe(2);
    expect(percentileOfHistogram(bins, 0.99)).toBe(2);
    expect(percentileOfHistogram(bins, 1)).toBe(10);
  });

  it('gives the only observation for any fraction', () => {
    expect(percentileOfHistogram([{ value: 7, count: 1 }], 0)).toBe(7);
    expect(percentileOfHistogram([{ value: 7, count: 1 }], 0.99)).toBe(7);
  });
});
