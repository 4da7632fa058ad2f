import { DEFAULT_COOLING_MS, MAX_COOLING_MS } from '../core/cooling-durations.js';
import type { FailureKind } from '../core/failure-kind.js';

/** The answer that told a deployment to wait. */
export interface CoolingCause {
  /** A kind whose policy cools: `rate_limit`, or `quota_exhausted` (a spend cap). */
  kind: FailureKind;
  httpStatus?: number;
  /** The wait the provider asked for, before the cap; absent when it named none (the default applied). */
  retryAfterMs?: number;
}

/** What replicas tell each other of a cooling: how long it was set for, and why. */
export interface SharedCooling {
  coolingMs: number;
  /** Absent when a replica of an older version set it: those did not share the cause. */
  cause?: CoolingCause;
}

/** A deployment's running cooling, on this replica's clock. */
export interface CoolingSpell {
  sinceMs: number;
  untilMs: number;
  cause: CoolingCause | undefined;
}

export interface CoolingOptions {
  now?: () => number;
  /** Hears cooling set here (not adopted), so other replicas can be told. */
  onCooled?: (deployment: string, shared: Required<SharedCooling>) => void;
}

/**
 * Deployments told to wait by a 429 (their Retry-After, capped), and why. Cooling is information
 * about the target, separate from ejection: the attempt loop skips a cooling deployment, it does
 * not hold the caller for it. Kept by deployment key, so it survives config reloads.
 */
export class Cooling {
  readonly #spells = new Map<string, CoolingSpell>();
  readonly #now: () => number;
  readonly #onCooled: ((deployment: string, shared: Required<SharedCooling>) => void) | undefined;

  constructor(options: CoolingOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#onCooled = options.onCooled;
  }

  /** Marks the deployment cooling for the cause's Retry-After (capped; the default when absent); returns the end. */
  cool(deployment: string, cause: CoolingCause): number {
    const coolingMs = Math.min(cause.retryAfterMs ?? DEFAULT_COOLING_MS, MAX_COOLING_MS);
    const untilMs = this.adopt(deployment, coolingMs, { coolingMs, cause });
    this.#onCooled?.(deployment, { coolingMs, cause });
    return untilMs;
  }

  /**
   * Cooling another replica set, with `leftMs` of its `coolingMs` still to run from now
   * (replicas' clocks need not agree); returns the end. The longer of it and a running cooling stands, with its cause.
   */
  adopt(deployment: string, leftMs: number, shared: SharedCooling): number {
    const untilMs = this.#now() + Math.min(leftMs, MAX_COOLING_MS);
    const running = this.#spells.get(deployment);
    if (!running || running.untilMs < untilMs) {
      this.#spells.set(deployment, { sinceMs: untilMs - shared.coolingMs, untilMs, cause: shared.cause });
    }
    return untilMs;
  }

  /** Drops what is known of the deployment (the health registry forgot it). */
  forget(deployment: string): void {
    this.#spells.delete(deployment);
  }

  /** When the deployment stops cooling, or undefined when it is not cooling. */
  coolingUntil(deployment: string): number | undefined {
    return this.spell(deployment)?.untilMs;
  }

  /** The deployment's cooling in force, or undefined when it is not cooling. */
  spell(deployment: string): CoolingSpell | undefined {
    const spell = this.#spells.get(deployment);
    if (spell === undefined) return undefined;
    if (spell.untilMs <= this.#now()) {
      this.#spells.delete(deployment);
      return undefined;
    }
    return spell;
  }
}
