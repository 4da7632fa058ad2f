import { DEFAULT_COOLING_MS, MAX_COOLING_MS } from '../core/cooling-durations.js';
import type { CoolingCause, CoolingSpell } from '../health/cooling.js';
import type { ConfiguredDeployment } from '../health/configured-deployments.js';
import { deploymentState, type DeploymentState } from '../health/deployment-state.js';
import type { DeploymentHealth } from '../health/health-registry.js';
import type { DeploymentHealthView } from './deployment-health-view.js';

/** What is known here of one deployment, for its `/admin/health` row. */
export interface DeploymentFacts extends ConfiguredDeployment {
  key: string;
  /** Undefined until this process uses it (or hears of it from another replica). */
  health: DeploymentHealth | undefined;
  cooling: CoolingSpell | undefined;
  /** Its connection's key was rejected: every deployment of the connection is out, used or not. */
  keyRejected: boolean;
  /** While it is ejected: when this replica would send its next recovery probe (another replica may send it instead). */
  nextRecoveryProbeAtMs: number | undefined;
}

/** A deployment's `/admin/health` row, but for its first-token figures. */
export function describeDeployment(facts: DeploymentFacts, redact: (text: string) => string): Omit<DeploymentHealthView, 'first_token' | 'model_change'> {
  const { health, cooling } = facts;
  const state: DeploymentState = health ? deploymentState(health, cooling?.untilMs) : facts.keyRejected ? 'structural' : cooling ? 'cooling' : 'healthy';
  const { sinceMs, reason } = explain(state, facts);
  return {
    deployment: facts.key,
    connection: facts.connection,
    model: facts.model,
    state,
    since: iso(sinceMs),
    reason,
    structural_cause: health?.structural.cause ?? (facts.keyRejected ? 'credential' : null),
    ejected_until: iso(health?.breaker.ejectedUntilMs),
    consecutive_ejections: health?.breaker.consecutiveEjections ?? 0,
    last_tried_at: iso(health?.lastTriedAtMs),
    next_probe_at: iso(health?.structural.state === 'structural' ? health.structural.nextProbeAtMs : facts.nextRecoveryProbeAtMs),
    cooling_until: iso(cooling?.untilMs),
    cooling_cause: cooling?.cause
      ? { kind: cooling.cause.kind, http_status: cooling.cause.httpStatus ?? null, retry_after_ms: cooling.cause.retryAfterMs ?? null }
      : null,
    last_error: health?.lastError ? { kind: health.lastError.kind, message: redact(health.lastError.message), at: new Date(health.lastError.atMs).toISOString() } : null,
    quota: health?.quota ?? null,
  };
}

/** Since when, and why, the deployment is in `state`. */
function explain(state: DeploymentState, { health, cooling }: DeploymentFacts): { sinceMs: number | undefined; reason: string } {
  if (state === 'cooling' && cooling) return { sinceMs: cooling.sinceMs, reason: coolingReason(cooling.cause) };
  if (!health) return state === 'structural' ? { sinceMs: undefined, reason: 'the connection key was rejected' } : { sinceMs: undefined, reason: 'no traffic yet' };
  const { structural, breaker } = health;
  // Its trial may be in flight on another replica: all that holds everywhere is that it waits for it.
  if (state === 'half_open') return { sinceMs: breaker.ejectedUntilMs ?? breaker.sinceMs, reason: 'ejection time is up: waiting for its trial request' };
  // The fault in force explains the state; with none, the latest change does (a probe's readmission).
  const explains = structural.state === 'structural' || (breaker.state === 'closed' && structural.sinceMs > breaker.sinceMs) ? structural : breaker;
  return { sinceMs: explains.sinceMs, reason: explains.reason };
}

/** "429 rate_limit, retry-after 30 s": the answer that cooled the deployment, and the wait it asked for. */
function coolingReason(cause: CoolingCause | undefined): string {
  if (!cause) return 'cooling; another replica (of an older version) set it without its cause';
  const answer = cause.httpStatus === undefined ? cause.kind : `${cause.httpStatus} ${cause.kind}`;
  if (cause.retryAfterMs === undefined) return `${answer}, no retry-after: the default ${seconds(DEFAULT_COOLING_MS)}`;
  if (cause.retryAfterMs > MAX_COOLING_MS) return `${answer}, retry-after ${seconds(cause.retryAfterMs)}, capped at ${seconds(MAX_COOLING_MS)}`;
  return `${answer}, retry-after ${seconds(cause.retryAfterMs)}`;
}

function seconds(ms: number): string {
  return `${ms / 1000} s`;
}

function iso(ms: number | undefined): string | null {
  return ms === undefined ? null : new Date(ms).toISOString();
}
