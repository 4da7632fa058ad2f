/**
 * How many first-token times a deployment keeps. A p99 of 128 samples is their second largest,
 * so one outlier does not decide it; 128 × 3 numbers is 3 KiB a deployment.
 */
export const FIRST_TOKEN_SAMPLES_KEPT = 128;

/**
 * Samples older than this no longer count: a provider's speed drifts with its load over the
 * day, and a deployment that has been quiet this long starts again from the maximum.
 */
export const FIRST_TOKEN_HORIZON_MS = 10 * 60_000;

/** One streamed success: how long its first content took once the request was sent, and its size. */
export interface FirstTokenSample {
  firstTokenMs: number;
  /** The request's estimated input tokens (the same estimate a new request is measured by). */
  inputTokens: number;
}

/** A deployment's recent first-token times: what timeouts (and hedges) learned from measurement read. */
export interface RecentFirstTokens {
  /** How many samples are inside the horizon. */
  readonly samples: number;
  /** The q-quantile (0 < q ≤ 1, nearest rank) of their first-token times; undefined without samples. */
  quantileMs(q: number): number | undefined;
  /** The median input size of those requests; undefined without samples. */
  readonly typicalInputTokens: number | undefined;
}

export const NO_FIRST_TOKENS: RecentFirstTokens = { samples: 0, quantileMs: () => undefined, typicalInputTokens: undefined };

/**
 * The last `FIRST_TOKEN_SAMPLES_KEPT` first-token times of one deployment, in a ring: a fixed
 * size whatever the traffic, exact percentiles of what it holds, and old samples aged out by
 * time rather than decayed, so the figure is that of the last minutes' answers and nothing else.
 */
export class FirstTokenSamples {
  readonly #firstTokenMs = new Float64Array(FIRST_TOKEN_SAMPLES_KEPT);
  readonly #inputTokens = new Float64Array(FIRST_TOKEN_SAMPLES_KEPT);
  readonly #atMs = new Float64Array(FIRST_TOKEN_SAMPLES_KEPT);
  #next = 0;
  #count = 0;

  observe(sample: FirstTokenSample, nowMs: number): void {
    this.#firstTokenMs[this.#next] = sample.firstTokenMs;
    this.#inputTokens[this.#next] = sample.inputTokens;
    this.#atMs[this.#next] = nowMs;
    this.#next = (this.#next + 1) % FIRST_TOKEN_SAMPLES_KEPT;
    this.#count = Math.min(this.#count + 1, FIRST_TOKEN_SAMPLES_KEPT);
  }

  recent(nowMs: number): RecentFirstTokens {
    const oldestMs = nowMs - FIRST_TOKEN_HORIZON_MS;
    const times: number[] = [];
    const inputs: number[] = [];
    for (let index = 0; index < this.#count; index++) {
      if (this.#atMs[index]! <= oldestMs) continue;
      times.push(this.#firstTokenMs[index]!);
      inputs.push(this.#inputTokens[index]!);
    }
    if (times.length === 0) return NO_FIRST_TOKENS;
    const sortedTimes = Float64Array.from(times).sort();
    const sortedInputs = Float64Array.from(inputs).sort();
    return {
      samples: sortedTimes.length,
      quantileMs: (q) => sortedTimes[Math.max(0, Math.ceil(q * sortedTimes.length) - 1)],
      typicalInputTokens: sortedInputs[Math.floor((sortedInputs.length - 1) / 2)],
    };
  }
}
