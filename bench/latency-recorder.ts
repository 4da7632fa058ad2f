/**
 * Response times at full float precision. autocannon's own histogram keeps whole milliseconds,
 * too coarse to judge a 2 ms budget, so the bench records the per-response times autocannon
 * emits and ranks them itself.
 */
export class LatencyRecorder {
  #samplesMs = new Float64Array(16_384);
  #count = 0;

  record(latencyMs: number): void {
    if (this.#count === this.#samplesMs.length) {
      const grown = new Float64Array(this.#samplesMs.length * 2);
      grown.set(this.#samplesMs);
      this.#samplesMs = grown;
    }
    this.#samplesMs[this.#count++] = latencyMs;
  }

  get count(): number {
    return this.#count;
  }

  /** Nearest-rank percentiles (`fractions` in 0..1), plus the mean; NaN when nothing was recorded. */
  summarise(fractions: readonly number[]): { percentilesMs: number[]; meanMs: number } {
    if (this.#count === 0) return { percentilesMs: fractions.map(() => Number.NaN), meanMs: Number.NaN };
    const sorted = this.#samplesMs.slice(0, this.#count).sort();
    let totalMs = 0;
    for (const sample of sorted) totalMs += sample;
    const percentilesMs = fractions.map((fraction) => {
      const rank = Math.min(sorted.length, Math.max(1, Math.ceil(fraction * sorted.length)));
      return sorted[rank - 1]!;
    });
    return { percentilesMs, meanMs: totalMs / sorted.length };
  }
}
