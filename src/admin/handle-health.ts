import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config/schema.js';
import { deploymentKey } from '../core/deployment-key.js';
import type { Cooling } from '../health/cooling.js';
import { configuredDeployments } from '../health/configured-deployments.js';
import { deploymentState } from '../health/deployment-state.js';
import type { DeploymentHealth, HealthState } from '../health/health-registry.js';
import { recoveryProbeDueAtMs } from '../health/recovery-probe-due.js';
import { recoveryProbeIntervalMs } from '../health/recovery-probe-interval.js';
import { noStore, sendJson } from '../http/send.js';
import { knownSecrets } from '../config/known-secrets.js';
import { redactSecrets } from '../records/redact-secrets.js';
import { FIRST_TOKEN_PERCENTILE, firstTokenTimeoutMs } from '../routing/first-token-timeout.js';
import type { LatencyTracker } from '../routing/latency-tracker.js';
import { checkAdminToken } from './check-admin-token.js';

export interface AdminHealthDeps {
  config(): Config;
  health: HealthState;
  cooling: Cooling;
  latency: LatencyTracker;
}

/**
 * `GET /admin/health`: every deployment of the config (and the unconfigured ones still remembered) with its
 * state, since when, why, the last error, the next probe, the latest quota headers and its first-token
 * times with the timeout each route gives it.
 */
export function handleHealth(request: IncomingMessage, response: ServerResponse, deps: AdminHealthDeps): void {
  const config = deps.config();
  checkAdminToken(request, config.admin.token);
  const seen = new Map(deps.health.all().map((deployment) => [deployment.key, deployment]));
  const keys = new Set([...configuredDeployments(config), ...seen.keys()]);
  const redact = (text: string) => redactSecrets(text, knownSecrets(config));
  const data = [...keys].sort().map((key) => ({ ...describe(key, seen.get(key), deps, redact), first_token: firstTokenOf(key, config, deps.latency) }));
  sendJson(response, 200, { data }, noStore());
}

function describe(key: string, deployment: DeploymentHealth | undefined, deps: AdminHealthDeps, redact: (text: string) => string): Record<string, unknown> {
  const coolingUntilMs = deps.cooling.coolingUntil(key);
  const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
  if (!deployment) {
    const connection = key.slice(0, key.indexOf('/'));
    if (deps.health.keyRejected(connection)) {
      return { deployment: key, state: 'structural', structural_cause: 'credential', since: null, reason: 'the connection key was rejected', cooling_until: iso(coolingUntilMs) };
    }
    return { deployment: key, state: coolingUntilMs === undefined ? 'healthy' : 'cooling', since: null, reason: 'no traffic yet', cooling_until: iso(coolingUntilMs) };
  }
  const state = deploymentState(deployment, coolingUntilMs);
  const { structural, breaker } = deployment;
  // The fault in force explains the state; with none, the latest change does (a probe's readmission).
  const explains =
    structural.state === 'structural' || (breaker.state === 'closed' && structural.sinceMs > breaker.sinceMs) ? structural : breaker;
  return {
    deployment: key,
    connection: deployment.connection,
    model: deployment.model,
    state,
    since: iso(explains.sinceMs),
    reason: explains.reason,
    structural_cause: deployment.structural.cause ?? null,
    ejected_until: iso(deployment.breaker.ejectedUntilMs),
    consecutive_ejections: deployment.breaker.consecutiveEjections,
    next_probe_at: iso(structural.state === 'structural' ? structural.nextProbeAtMs : recoveryProbeOf(deployment, coolingUntilMs, deps.config())),
    cooling_until: iso(coolingUntilMs),
    last_error: deployment.lastError
      ? { kind: deployment.lastError.kind, message: redact(deployment.lastError.message), at: iso(deployment.lastError.atMs) }
      : null,
    quota: deployment.quota ?? null,
  };
}

/** When this replica would send the ejected deployment's next recovery probe (another replica may send it instead). */
function recoveryProbeOf(deployment: DeploymentHealth, coolingUntilMs: number | undefined, config: Config): number | undefined {
  return recoveryProbeDueAtMs({
    breaker: deployment.breaker,
    intervalMs: recoveryProbeIntervalMs(config, deployment.key),
    lastProbeAtMs: deployment.recoveryProbedAtMs,
    coolingUntilMs,
  });
}

/**
 * This replica's recent first-token times of the deployment, and the first-token timeout a streamed
 * request of their typical size gets on each route that names it (`auto` routes: the learned value).
 */
function firstTokenOf(key: string, config: Config, latency: LatencyTracker): Record<string, unknown> {
  const recent = latency.recentFirstTokens(key);
  const timeoutMs: Record<string, number> = {};
  for (const [name, route] of Object.entries(config.routes)) {
    if (!route.targets.some((target) => deploymentKey(target.connection, target.model) === key)) continue;
    // A route's only target is its last option, which waits the maximum.
    timeoutMs[name] = firstTokenTimeoutMs(route.timeouts, recent, { streamedInputTokens: recent.typicalInputTokens ?? 0, lastOption: route.targets.length === 1 });
  }
  return { samples: recent.samples, p99_ms: recent.quantileMs(FIRST_TOKEN_PERCENTILE) ?? null, typical_input_tokens: recent.typicalInputTokens ?? null, timeout_ms: timeoutMs };
}
