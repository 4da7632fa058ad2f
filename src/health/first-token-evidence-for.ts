import { deploymentKey } from '../core/deployment-key.js';
import { modelIdentity } from '../metering/model-catalog.js';
import { firstTokenEvidence, type EvidenceDeployment, type FirstTokenEvidence } from './first-token-evidence.js';
import type { LatencyTracker } from './latency-tracker.js';
import type { HealthState } from './health-registry.js';

/**
 * The evidence an attempt on `target` is timed by (see `firstTokenEvidence`), searched among the
 * deployments this process has measured and the route's other targets.
 */
export function firstTokenEvidenceFor(
  state: { registry: Pick<HealthState, 'find'>; latency: Pick<LatencyTracker, 'measuredDeployments' | 'recentFirstTokens'> },
  target: { connection: string; model: string },
  routeTargets: () => readonly { connection: string; model: string }[],
  reasoning: boolean,
): FirstTokenEvidence | undefined {
  const measured = (): EvidenceDeployment[] => {
    const found: EvidenceDeployment[] = [];
    for (const key of state.latency.measuredDeployments()) {
      const deployment = state.registry.find(key);
      if (deployment !== undefined) found.push({ key, connection: deployment.connection, model: deployment.model });
    }
    return found;
  };
  // The two fields, not a spread: the target is the health registry's whole deployment, and this runs per attempt.
  const withKey = (deployment: { connection: string; model: string }): EvidenceDeployment => ({
    connection: deployment.connection,
    model: deployment.model,
    key: deploymentKey(deployment.connection, deployment.model),
  });
  return firstTokenEvidence({
    target: withKey(target),
    routeTargets: () => routeTargets().map(withKey),
    measured,
    reasoning,
    recentOf: (key, reasoningSamples) => state.latency.recentFirstTokens(key, reasoningSamples),
    sameModel: (a, b) => modelIdentity(a) === modelIdentity(b),
  });
}
