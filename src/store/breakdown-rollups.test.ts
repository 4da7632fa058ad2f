import { describe, expect, it } from 'vitest';
import { firstTokenBin } from './breakdown-rollups.js';

describe('firstTokenBin', () => {
  it('is exact below 20 ms and at most 10 % below the value above, never above it', () => {
    expect([0, 7, 19, 20, 21, 22, 100, 1_000].map(firstTokenBin)).toEqual([0, 7, 19, 20, 20, 22, 91, 995]);
    for (let ms = 20; ms < 200_000; ms = Math.ceil(ms * 1.013)) {
      const bin = firstTokenBin(ms);
      expect(bin, String(ms)).toBeLessThanOrEqual(ms);
      expect(bin, String(ms)).toBeGreaterThan(ms / 1.1 - 1);
    }
  });

  it('keeps a decade in about 24 bins', () => {
    const bins = new Set(Array.from({ length: 900 }, (_, index) => firstTokenBin(100 + index)));
    expect(bins.size).toBeGreaterThanOrEqual(23);
    expect(bins.size).toBeLessThanOrEqual(26);
  });
});
