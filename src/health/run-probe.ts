import type { AttemptTimeouts, Config, TimeoutsConfig } from '../config/schema.js';
import type { AttemptRecord } from '../core/attempt-record.js';
import type { FailureKind } from '../core/failure-kind.js';
import { RecordDraft } from '../records/record-draft.js';
import type { ResolvedTarget } from '../routing/resolve-route.js';
import type { DeploymentHealth } from './health-registry.js';

/** A probe gets a short leash: it exists to find out, not to wait. */
export const PROBE_TIMEOUTS: AttemptTimeouts & Pick<TimeoutsConfig, 'total_ms'> = { connect_ms: 3_000, first_token_ms: 15_000, idle_ms: 15_000, total_ms: 20_000 };

/** How one probe attempt went, as the engine reports it. */
export type ProbeOutcome = { ok: true; record: AttemptRecord } | { ok: false; record: AttemptRecord; error: { kind: FailureKind } };

export interface ProbeDeps {
  config(): Config;
  /** The id of the probe's record (the same kind as a caller request's). */
  newRequestId(): string;
  /** Sends the probe request to `target` once, within `PROBE_TIMEOUTS` and `deadlineAtMs` (the engine's attempt, injected). */
  attempt(input: { target: ResolvedTarget; requestStartedAtMs: number; deadlineAtMs: number }): Promise<ProbeOutcome>;
  /** Keeps the probe's record (and its spend, if the probe was billed). */
  keep(draft: RecordDraft): void;
}

/** One active probe (docs/health.md), kept as a record of its own, marked as a probe. */
export async function runProbe(deployment: DeploymentHealth, deps: ProbeDeps): Promise<FailureKind> {
  const connection = deps.config().connections[deployment.connection];
  // A connection a reload removed cannot recover: leave it faulted, it is no longer routed to.
  if (!connection) return 'not_found';
  const target: ResolvedTarget = {
    connectionName: deployment.connection,
    connection,
    routedModel: deployment.model,
    modelChange: false,
    config: { connection: deployment.connection, model: deployment.model, model_change: false, weight: 1, priority: 0 },
  };
  const draft = new RecordDraft(deps.newRequestId(), Date.now());
  draft.origin = 'probe';
  draft.modelRequested = deployment.key;
  // Asked of the deployment directly, as a caller's `connection/model` is: `route` null means no route.
  draft.route = deployment.key;
  const outcome = await deps.attempt({ target, requestStartedAtMs: draft.startedAtMs, deadlineAtMs: draft.startedAtMs + PROBE_TIMEOUTS.total_ms });
  draft.attempts = [outcome.record];
  if (outcome.ok) draft.served = target;
  else draft.fail('failed', outcome.record.httpStatus ?? 502, { code: outcome.error.kind });
  deps.keep(draft);
  return outcome.record.kind;
}
