import { FirstTokenSamples, NO_FIRST_TOKENS, type FirstTokenSample, type RecentFirstTokens } from './first-token-samples.js';

/** How much one answer moves the estimate: recent answers count most, one outlier does not decide. */
const SMOOTHING = 0.3;

/** A successful attempt, as latency is learned from it. */
export interface ObservedAnswer {
  /** Time to first token (streams) or to the whole answer: what `least_latency` compares. */
  latencyMs: number;
  /** Only for a stream: its first-token time counted from the send, and its size. */
  firstToken?: FirstTokenSample;
}

/**
 * Recent latency per deployment (`connection/model`), from successful attempts (failures are the
 * health state's business): an exponentially weighted average for `least_latency` routes, and the
 * recent first-token times of streams, for first-token timeouts learned from measurement. Kept
 * per process: every sample is one attempt's, and sharing them would cost a call to the shared
 * state on every attempt.
 */
export class LatencyTracker {
  readonly #averageMs = new Map<string, number>();
  readonly #firstTokens = new Map<string, FirstTokenSamples>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  observe(deploymentKey: string, answer: ObservedAnswer): void {
    const previous = this.#averageMs.get(deploymentKey);
    this.#averageMs.set(deploymentKey, previous === undefined ? answer.latencyMs : previous + SMOOTHING * (answer.latencyMs - previous));
    if (answer.firstToken === undefined) return;
    let samples = this.#firstTokens.get(deploymentKey);
    if (samples === undefined) this.#firstTokens.set(deploymentKey, (samples = new FirstTokenSamples()));
    samples.observe(answer.firstToken, this.#now());
  }

  /** Drops the deployment's figures (the health registry forgot it). */
  forget(deploymentKey: string): void {
    this.#averageMs.delete(deploymentKey);
    this.#firstTokens.delete(deploymentKey);
  }

  estimate(deploymentKey: string): number | undefined {
    return this.#averageMs.get(deploymentKey);
  }

  recentFirstTokens(deploymentKey: string): RecentFirstTokens {
    return this.#firstTokens.get(deploymentKey)?.recent(this.#now()) ?? NO_FIRST_TOKENS;
  }
}
