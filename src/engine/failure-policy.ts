import type { FailureKind } from '../errors/failure-kind.js';
import type { FailureRule, RouteConfig } from '../config/schema.js';

export type AttemptFailureKind = Exclude<FailureKind, 'ok'>;

export interface KindPolicy {
  /** What the attempt loop does next by default (a route's `on` overrides it). */
  rule: FailureRule;
  /** Whether the failure counts toward ejecting the deployment (docs/health.md). */
  countsTowardEjection: boolean;
}

/** The one table that decides what each failure kind means for the attempt loop (docs/errors.md). */
export const FAILURE_POLICY: Readonly<Record<AttemptFailureKind, KindPolicy>> = {
  rate_limit: { rule: 'failover', countsTowardEjection: false },
  quota_exhausted: { rule: 'failover', countsTowardEjection: false },
  server_error: { rule: 'retry', countsTowardEjection: true },
  timeout: { rule: 'failover', countsTowardEjection: true },
  connection: { rule: 'retry', countsTowardEjection: true },
  credential: { rule: 'failover', countsTowardEjection: false },
  not_found: { rule: 'failover', countsTowardEjection: false },
  context_length: { rule: 'failover', countsTowardEjection: false },
  moderation: { rule: 'stop', countsTowardEjection: false },
  invalid_request: { rule: 'failover', countsTowardEjection: false },
  stream_interrupted: { rule: 'stop', countsTowardEjection: true },
  cancelled: { rule: 'stop', countsTowardEjection: false },
};

export function ruleFor(kind: AttemptFailureKind, route: Pick<RouteConfig, 'on'>): FailureRule {
  return route.on[kind] ?? FAILURE_POLICY[kind].rule;
}
