import type { BreakerState } from './breaker.js';

export interface RecoveryProbeInput {
  breaker: { state: BreakerState; sinceMs: number };
  /** `recovery_probe_s` in ms; 0: recovery probes are off. */
  intervalMs: number;
  /** When this replica last took a recovery probe's turn (sent it, or found another replica had). */
  lastProbeAtMs: number | undefined;
  /** When the deployment stops cooling, if it is. */
  coolingUntilMs: number | undefined;
}

/**
 * When a deployment's next recovery probe is due, or undefined when none is: its breaker is
 * closed, or recovery probes are off. An ejected deployment is first probed one interval after it
 * was ejected (the failures that ejected it are evidence enough for that long), then one interval
 * after each probe. Half-open, its ejection time is over: a probe is due at once unless one went
 * out less than an interval ago. Never while the provider asked to wait (cooling).
 */
export function recoveryProbeDueAtMs(input: RecoveryProbeInput): number | undefined {
  const { breaker, intervalMs, lastProbeAtMs, coolingUntilMs } = input;
  if (breaker.state === 'closed' || intervalMs <= 0) return undefined;
  const ejectedAtMs = breaker.state === 'ejected' ? breaker.sinceMs : undefined;
  const lastEvidenceAtMs = Math.max(lastProbeAtMs ?? -Infinity, ejectedAtMs ?? -Infinity);
  const dueAtMs = lastEvidenceAtMs === -Infinity ? breaker.sinceMs : lastEvidenceAtMs + intervalMs;
  return Math.max(dueAtMs, coolingUntilMs ?? -Infinity);
}
