import { FirstTokenSamples, NO_FIRST_TOKENS, type FirstTokenSample, type RecentFirstTokens } from './first-token-samples.js';

/** How much one answer moves the estimate: recent answers count most, one outlier does not decide. */
const SMOOTHING = 0.3;

/** A successful attempt, as latency is learned from it. */
export interface ObservedAnswer {
  /** Time to first token (streams) or to the whole answer: what `least_latency` compares. */
  latencyMs: number;
  /** Only for a stream: its first-token time counted from the send, and its size. */
  firstToken?: FirstTokenSample;
  /** The request asked for reasoning (or the model reasons by default): its first token is timed apart. */
  reasoning?: boolean;
}

/** A deployment's first-token times, kept apart for requests that reason first. */
interface FirstTokenRings {
  plain: FirstTokenSamples;
  reasoning: FirstTokenSamples;
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
  readonly #firstTokens = new Map<string, FirstTokenRings>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  observe(deploymentKey: string, answer: ObservedAnswer): void {
    const previous = this.#averageMs.get(deploymentKey);
    this.#averageMs.set(deploymentKey, previous === undefined ? answer.latencyMs : previous + SMOOTHING * (answer.latencyMs - previous));
    if (answer.firstToken !== undefined) this.#ringOf(deploymentKey, answer.reasoning).observe(answer.firstToken, this.#now());
  }

  /**
   * A stream cut at its first-token timeout: its first token would have come later than that, so
   * the timeout joins the samples as one (a censored sample). Left out, the samples would show only
   * the answers fast enough to get through, and a deployment cut every time could never learn
   * that it is slower.
   */
  observeSilence(deploymentKey: string, silence: FirstTokenSample, reasoning: boolean): void {
    this.#ringOf(deploymentKey, reasoning).observe(silence, this.#now());
  }

  #ringOf(deploymentKey: string, reasoning: boolean | undefined): FirstTokenSamples {
    let rings = this.#firstTokens.get(deploymentKey);
    if (rings === undefined) this.#firstTokens.set(deploymentKey, (rings = { plain: new FirstTokenSamples(), reasoning: new FirstTokenSamples() }));
    return reasoning ? rings.reasoning : rings.plain;
  }

  /** Drops the deployment's figures (the health registry forgot it). */
  forget(deploymentKey: string): void {
    this.#averageMs.delete(deploymentKey);
    this.#firstTokens.delete(deploymentKey);
  }

  estimate(deploymentKey: string): number | undefined {
    return this.#averageMs.get(deploymentKey);
  }

  /** The deployment's recent first-token times of requests that reason first (`reasoning`), or of the others. */
  recentFirstTokens(deploymentKey: string, reasoning = false): RecentFirstTokens {
    const rings = this.#firstTokens.get(deploymentKey);
    if (rings === undefined) return NO_FIRST_TOKENS;
    return (reasoning ? rings.reasoning : rings.plain).recent(this.#now());
  }

  /** The deployments with first-token times kept (some may be past the horizon). */
  measuredDeployments(): IterableIterator<string> {
    return this.#firstTokens.keys();
  }
}
