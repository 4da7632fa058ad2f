import type { AttemptFailureKind } from './failure-policy.js';

/**
 * Why a planned target got no attempt: health had it out (`ejected`, `cooling`, `structural`,
 * `busy`), or an earlier target refused the input as too long and this one is not known to take
 * more (`context_window`).
 */
export type SkipReason = 'ejected' | 'cooling' | 'structural' | 'busy' | 'context_window';

/** A target of the request's plan that was passed over without an attempt. */
export interface SkippedTarget {
  connection: string;
  /** The routed model. */
  model: string;
  reason: SkipReason;
  /** Epoch milliseconds when the time out ends, when known (ejected, cooling, structural with a probe due). */
  untilMs?: number;
  /**
   * What keeps the deployment out until a probe succeeds, when anything does (a structural fault's
   * cause: `quota_exhausted`, `credential`, `not_found`, `persistent_429`): the final error tells an
   * exhausted quota from a passing outage by it.
   */
  cause?: string;
  /**
   * The failure the skip stands for, in the final error and in where the request ended: the
   * structural fault's cause (a persistent 429 is a `rate_limit`), else cooling a `rate_limit`, an
   * ejection the kind that ejected it, a window too small `context_length`; absent for `busy` (a
   * full connection says nothing of the deployment).
   */
  kind?: AttemptFailureKind;
}
