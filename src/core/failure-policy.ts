import type { FailureKind } from './failure-kind.js';

export type AttemptFailureKind = Exclude<FailureKind, 'ok'>;

/** What the attempt loop may do after a failed attempt; a route's `on` names one per kind. */
export const FAILURE_RULES = ['retry', 'failover', 'stop'] as const;
export type FailureRule = (typeof FAILURE_RULES)[number];

export interface KindPolicy {
  /** What the attempt loop does next by default (a route's `on` overrides it). */
  rule: FailureRule;
  /** Whether the failure counts toward ejecting the deployment (docs/health.md). */
  countsTowardEjection: boolean;
  /** Whether a `retry` rule may send the same target the request again. */
  sameTargetRetry: boolean;
}

/** The one table that decides what each failure kind means for the attempt loop (docs/errors.md). */
export const FAILURE_POLICY: Readonly<Record<AttemptFailureKind, KindPolicy>> = {
  rate_limit: { rule: 'failover', countsTowardEjection: false, sameTargetRetry: true },
  quota_exhausted: { rule: 'failover', countsTowardEjection: false, sameTargetRetry: true },
  server_error: { rule: 'retry', countsTowardEjection: true, sameTargetRetry: true },
  // A silent target stays silent.
  timeout: { rule: 'failover', countsTowardEjection: true, sameTargetRetry: false },
  connection: { rule: 'retry', countsTowardEjection: true, sameTargetRetry: true },
  credential: { rule: 'failover', countsTowardEjection: false, sameTargetRetry: true },
  not_found: { rule: 'failover', countsTowardEjection: false, sameTargetRetry: true },
  context_length: { rule: 'failover', countsTowardEjection: false, sameTargetRetry: true },
  moderation: { rule: 'stop', countsTowardEjection: false, sameTargetRetry: true },
  invalid_request: { rule: 'failover', countsTowardEjection: false, sameTargetRetry: true },
  stream_interrupted: { rule: 'stop', countsTowardEjection: true, sameTargetRetry: true },
  cancelled: { rule: 'stop', countsTowardEjection: false, sameTargetRetry: true },
  // Nothing reached the provider, so nothing is known about it; the same request would fail the
  // same way on this target, while another target's adapter may well build it.
  internal_error: { rule: 'failover', countsTowardEjection: false, sameTargetRetry: false },
};

export function ruleFor(kind: AttemptFailureKind, route: { on: Partial<Record<AttemptFailureKind, FailureRule>> }): FailureRule {
  return route.on[kind] ?? FAILURE_POLICY[kind].rule;
}
