import type { Cancellation } from '../core/cancellation.js';
import type { Config } from '../config/schema.js';
import { knownSecrets } from '../config/known-secrets.js';
import type { HealthDoor } from '../health/health-door.js';
import type { HealthState } from '../health/health-registry.js';
import type { ProviderAdapter } from '../providers/spec.js';
import { redactSecrets } from '../records/redact-secrets.js';
import type { ResolvedTarget } from '../routing/resolve-route.js';
import { runGatewayRequest, type GatewayRequestDeps } from '../serving/run-gateway-request.js';
import { DrillHealthDoor } from './drill-health-door.js';
import { drillRequest } from './drill-request.js';
import type { DrillStep } from './drill-run.js';
import type { PlannedDrillStep } from './plan-drill-steps.js';

export interface DrillStepDeps {
  config(): Config;
  gatewayRequests: GatewayRequestDeps;
  /** The engine's door, which the step's own door admits through. */
  engineHealth: HealthDoor;
  registry: HealthState;
  adapterFor(target: ResolvedTarget): ProviderAdapter;
}

/**
 * Sends one drill step's request through the attempt loop (recorded with origin `drill`) and
 * says how it went. Undefined when the drill was cut short meanwhile: a step the shutdown
 * interrupted proves nothing about the target.
 */
export async function runDrillStep(planned: PlannedDrillStep, deps: DrillStepDeps, cancellation: Cancellation): Promise<DrillStep | undefined> {
  const door = new DrillHealthDoor({ engine: deps.engineHealth, registry: deps.registry, config: deps.config });
  const outcome = await runGatewayRequest(
    {
      origin: 'drill',
      route: planned.route,
      request: drillRequest(planned.route, deps.adapterFor(planned.target)),
      health: door,
      forcedFailures: planned.forcedFailures,
      cancellation,
    },
    deps.gatewayRequests,
  );
  if (cancellation.aborted) return undefined;
  const { target } = planned;
  const step = {
    route: planned.route.name,
    step: planned.step,
    position: planned.position,
    connection: target.connectionName,
    model: target.routedModel,
    latency_ms: outcome.record.latency_ms,
    request_id: outcome.record.id,
  };
  const failed = (kind: string, message: string): DrillStep => ({
    ...step,
    result: kind,
    kind,
    message: redactSecrets(message, knownSecrets(deps.config())),
  });
  if (outcome.ok) {
    if (outcome.served === target) return { ...step, result: 'ok', kind: null, message: null };
    return failed('not_reached', `answered by ${outcome.served.connectionName}/${outcome.served.routedModel} instead of this target`);
  }
  const reached = outcome.record.attempts.some((attempt) => attempt.error_type !== 'forced_failure');
  if (!reached && door.sawBusy) {
    return {
      ...step,
      result: 'skipped',
      kind: 'busy',
      message: `connection ${target.connectionName} is at its in-flight limit (max_in_flight ${target.connection.max_in_flight}); not tried`,
    };
  }
  if (!reached && planned.step === 'chain') {
    return failed(outcome.kind, `the route ends at the server_error of target ${planned.position - 1} (its on.server_error rule), so this target is never reached`);
  }
  return failed(outcome.kind, outcome.message);
}
