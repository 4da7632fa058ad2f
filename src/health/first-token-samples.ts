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
  /**
   * The last figures read, until a sample is added or one of theirs ages out: every attempt reads
   * them (often more than once), and sorting the ring each time was a measurable share of a request.
   */
  #read: { figures: RecentFirstTokens; validBeforeMs: number } | undefined;

  observe(sample: FirstTokenSample, nowMs: number): void {
    this.#firstTokenMs[this.#next] = sample.firstTokenMs;
    this.#inputTokens[this.#next] = sample.inputTokens;
    this.#atMs[this.#next] = nowMs;
    this.#next = (this.#next + 1) % FIRST_TOKEN_SAMPLES_KEPT;
    this.#count = Math.min(this.#count + 1, FIRST_TOKEN_SAMPLES_KEPT);
    this.#read = undefined;
  }

  recent(nowMs: number): RecentFirstTokens {
    if (this.#read !== undefined && nowMs < this.#read.validBeforeMs) return this.#read.figures;
    const oldestMs = nowMs - FIRST_TOKEN_HORIZON_MS;
    const times = new Float64Array(this.#count);
    const inputs = new Float64Array(this.#count);
    let kept = 0;
    let firstAgeOutMs = Number.POSITIVE_INFINITY;
    for (let index = 0; index < this.#count; index++) {
      const atMs = this.#atMs[index]!;
      if (atMs <= oldestMs) continue;
      times[kept] = this.#firstTokenMs[index]!;
      inputs[kept] = this.#inputTokens[index]!;
      kept += 1;
      firstAgeOutMs = Math.min(firstAgeOutMs, atMs + FIRST_TOKEN_HORIZON_MS);
    }
    let figures = NO_FIRST_TOKENS;
    if (kept > 0) {
      const sortedTimes = times.subarray(0, kept).sort();
      const sortedInputs = inputs.subarray(0, kept).sort();
      figures = {
        samples: kept,
        quantileMs: (q) => sortedTimes[Math.max(0, Math.ceil(q * kept) - 1)],
        typicalInputTokens: sortedInputs[Math.floor((kept - 1) / 2)],
      };
    }
    this.#read = { figures, validBeforeMs: firstAgeOutMs };
    return figures;
  }
}
