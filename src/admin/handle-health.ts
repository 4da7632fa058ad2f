import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config/schema.js';
import { deploymentKey } from '../core/deployment-key.js';
import type { Cooling } from '../health/cooling.js';
import { configuredDeployments, type ConfiguredDeployment } from '../health/configured-deployments.js';
import type { HealthState } from '../health/health-registry.js';
import { recoveryProbeDueAtMs } from '../health/recovery-probe-due.js';
import { recoveryProbeIntervalMs } from '../health/recovery-probe-interval.js';
import { noStore, sendJson } from '../http/send.js';
import { knownSecrets } from '../config/known-secrets.js';
import { redactSecrets } from '../records/redact-secrets.js';
import { FIRST_TOKEN_PERCENTILE, firstTokenTimeout } from '../health/first-token-timeout.js';
import type { FirstTokenSource } from '../core/attempt-record.js';
import { isReasoningModel } from '../metering/model-catalog.js';
import { firstTokenEvidenceFor } from '../health/first-token-evidence-for.js';
import type { LatencyTracker } from '../health/latency-tracker.js';
import { modelChanges } from '../routing/model-change.js';
import type { AdminHealthResponse, DeploymentHealthView, FirstTokenView, ModelChangeView } from './deployment-health-view.js';
import { describeDeployment } from './describe-deployment.js';

export interface AdminHealthDeps {
  config(): Config;
  health: HealthState;
  cooling: Cooling;
  latency: LatencyTracker;
}

/**
 * `GET /admin/health`: every deployment of the config, from the start, and the unconfigured ones
 * still remembered, with its state, since when, why, the last error and try, the next probe, the
 * latest quota headers, its first-token times with the timeout each route gives it, and whether
 * each route takes it as a model change.
 */
export function handleHealth(_request: IncomingMessage, response: ServerResponse, deps: AdminHealthDeps): void {
  const config = deps.config();
  const known = new Map(deps.health.all().map((deployment) => [deployment.key, deployment]));
  const deployments = new Map<string, ConfiguredDeployment>([...configuredDeployments(config), ...known]);
  const redact = (text: string) => redactSecrets(text, knownSecrets(config));
  const modelChange = modelChangeByDeployment(config);
  const data: DeploymentHealthView[] = [...deployments.keys()].sort().map((key) => {
    const { connection, model } = deployments.get(key)!;
    const health = known.get(key);
    const cooling = deps.cooling.spell(key);
    const nextRecoveryProbeAtMs = health && recoveryProbeDueAtMs({ breaker: health.breaker, intervalMs: recoveryProbeIntervalMs(config, key), lastProbeAtMs: health.recoveryProbedAtMs, coolingUntilMs: cooling?.untilMs });
    const facts = { key, connection, model, health, cooling, keyRejected: deps.health.keyRejected(connection), nextRecoveryProbeAtMs };
    return {
      ...describeDeployment(facts, redact),
      first_token: firstTokenOf({ key, connection, model }, config, { registry: deps.health, latency: deps.latency }),
      model_change: modelChange.get(key) ?? {},
    };
  });
  const body: AdminHealthResponse = { data };
  sendJson(response, 200, body, noStore());
}

/**
 * This replica's recent first-token times of the deployment, and the first-token timeout a streamed
 * request of their typical size gets on each route that names it, with where it comes from (`auto`
 * routes: the deployment's own times, or those it borrows; docs/lifecycle.md).
 */
type FirstTokenState = Parameters<typeof firstTokenEvidenceFor>[0];

function firstTokenOf(deployment: { key: string; connection: string; model: string }, config: Config, state: FirstTokenState): FirstTokenView {
  const recent = state.latency.recentFirstTokens(deployment.key);
  const timeoutMs: Record<string, number> = {};
  const source: Record<string, FirstTokenSource> = {};
  const reasoning = isReasoningModel(deployment.model);
  for (const [name, route] of Object.entries(config.routes)) {
    if (!route.targets.some((target) => deploymentKey(target.connection, target.model) === deployment.key)) continue;
    const evidence = firstTokenEvidenceFor(state, deployment, () => route.targets, reasoning);
    const streamedInputTokens = evidence?.recent.typicalInputTokens ?? recent.typicalInputTokens ?? 0;
    // A route's only target is its last option, which waits the maximum.
    const timeout = firstTokenTimeout(route.timeouts, evidence, { streamedInputTokens, lastOption: route.targets.length === 1, reasoning }, state.latency.recentFirstTokens(deployment.key, reasoning));
    timeoutMs[name] = timeout.timeoutMs;
    source[name] = timeout.source;
  }
  return { samples: recent.samples, p99_ms: recent.quantileMs(FIRST_TOKEN_PERCENTILE) ?? null, typical_input_tokens: recent.typicalInputTokens ?? null, timeout_ms: timeoutMs, source };
}

/** Per deployment, per route naming it: whether that route takes it as a model change, and whether that was inferred. */
function modelChangeByDeployment(config: Config): Map<string, Record<string, ModelChangeView>> {
  const byDeployment = new Map<string, Record<string, ModelChangeView>>();
  for (const [name, route] of Object.entries(config.routes)) {
    const changes = modelChanges(route.targets);
    route.targets.forEach((target, index) => {
      const key = deploymentKey(target.connection, target.model);
      const routes = byDeployment.get(key) ?? {};
      routes[name] ??= { value: changes[index]!.modelChange, inferred: changes[index]!.inferred };
      byDeployment.set(key, routes);
    });
  }
  return byDeployment;
}
