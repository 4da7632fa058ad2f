/** How much one answer moves the estimate: recent answers count most, one outlier does not decide. */
const SMOOTHING = 0.3;

/**
 * Recent latency per deployment (`connection/model`), for `least_latency` routes: an
 * exponentially weighted average of successful attempts' time to first token (streams) or to
 * the whole answer. Failures are the health state's business, not counted here.
 */
export class LatencyTracker {
  readonly #averageMs = new Map<string, number>();

  observe(deploymentKey: string, latencyMs: number): void {
    const previous = this.#averageMs.get(deploymentKey);
    this.#averageMs.set(deploymentKey, previous === undefined ? latencyMs : previous + SMOOTHING * (latencyMs - previous));
  }

  /** Drops the deployment's figure (the health registry forgot it). */
  forget(deploymentKey: string): void {
    this.#averageMs.delete(deploymentKey);
  }

  estimate(deploymentKey: string): number | undefined {
    return this.#averageMs.get(deploymentKey);
  }
}
