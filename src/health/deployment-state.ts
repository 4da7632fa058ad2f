import type { DeploymentHealth } from './health-registry.js';

/** How a deployment looks from outside, most serious first: what `/admin/health` and the state metric say. */
export const DEPLOYMENT_STATES = ['structural', 'ejected', 'half_open', 'cooling', 'healthy'] as const;
export type DeploymentState = (typeof DEPLOYMENT_STATES)[number];

export function deploymentState(deployment: DeploymentHealth, coolingUntilMs: number | undefined): DeploymentState {
  if (deployment.structural.state === 'structural') return 'structural';
  const breaker = deployment.breaker.stateNow;
  if (breaker !== 'closed') return breaker;
  return coolingUntilMs === undefined ? 'healthy' : 'cooling';
}
