/** `count` observations fell in the bin that starts at `value`. */
export interface HistogramBin {
  value: number;
  count: number;
}

/**
 * The nearest-rank percentile (`fraction` in 0..1) of a histogram: the start of the bin that
 * holds the ⌈fraction × total⌉-th smallest observation. Null for an empty histogram. Bins may
 * come in any order.
 */
export function percentileOfHistogram(bins: readonly HistogramBin[], fraction: number): number | null {
  const total = bins.reduce((sum, bin) => sum + bin.count, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(fraction * total));
  let seen = 0;
  for (const bin of [...bins].sort((a, b) => a.value - b.value)) {
    seen += bin.count;
    if (seen >= rank) return bin.value;
  }
  return null;
}
