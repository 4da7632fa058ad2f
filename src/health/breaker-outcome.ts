import type { FailureKind } from '../core/failure-kind.js';
import { FAILURE_POLICY } from '../core/failure-policy.js';

/**
 * What an attempt's outcome tells the breaker. `failure` is a kind that counts toward ejection
 * (`FAILURE_POLICY[kind].countsTowardEjection`); `neutral` is every other failure (throttling,
 * the caller's own mistakes, cancellation): it says nothing about the deployment's health.
 */
export type BreakerOutcome = 'success' | 'failure' | 'neutral';

export function breakerOutcomeOf(kind: FailureKind): BreakerOutcome {
  if (kind === 'ok') return 'success';
  return FAILURE_POLICY[kind].countsTowardEjection ? 'failure' : 'neutral';
}
