import { DEFAULT_COOLING_MS, MAX_COOLING_MS } from '../core/cooling-durations.js';

/**
 * Deployments told to wait by a 429 (their Retry-After, capped). Cooling is information about the
 * target, separate from ejection: the attempt loop skips a cooling deployment, it does not hold
 * the caller for it. Kept by deployment key, so it survives config reloads.
 */
export class Cooling {
  readonly #untilMs = new Map<string, number>();
  readonly #now: () => number;
  /** Hears cooling set here (not adopted), so other replicas can be told. */
  onCooled: ((deployment: string, coolingMs: number) => void) | undefined;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Marks the deployment cooling for `retryAfterMs` (capped; the default when absent); returns the end. */
  cool(deployment: string, retryAfterMs: number | undefined): number {
    const coolingMs = Math.min(retryAfterMs ?? DEFAULT_COOLING_MS, MAX_COOLING_MS);
    const untilMs = this.adopt(deployment, coolingMs);
    this.onCooled?.(deployment, coolingMs);
    return untilMs;
  }

  /** Cooling another replica set: `coolingMs` from now (replicas' clocks need not agree); returns the end. */
  adopt(deployment: string, coolingMs: number): number {
    const untilMs = this.#now() + Math.min(coolingMs, MAX_COOLING_MS);
    this.#untilMs.set(deployment, Math.max(untilMs, this.#untilMs.get(deployment) ?? 0));
    return untilMs;
  }

  /** Drops what is known of the deployment (the health registry forgot it). */
  forget(deployment: string): void {
    this.#untilMs.delete(deployment);
  }

  /** When the deployment stops cooling, or undefined when it is not cooling. */
  coolingUntil(deployment: string): number | undefined {
    const untilMs = this.#untilMs.get(deployment);
    if (untilMs === undefined) return undefined;
    if (untilMs <= this.#now()) {
      this.#untilMs.delete(deployment);
      return undefined;
    }
    return untilMs;
  }
}
