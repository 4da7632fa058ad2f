import type { DeploymentHealth } from './health-registry.js';

/** How a deployment looks from outside, most serious first: what `/admin/health` and the state metric say. */
export const DEPLOYMENT_STATES = ['structural', 'ejected', 'half_open', 'cooling', 'healthy'] as const;
export type DeploymentState = (typeof DEPLOYMENT_STATES)[number];

export function deploymentState(deployment: DeploymentHealth, coolingUntilMs: number | undefined): DeploymentState {
  if (deployment.structural.state === 'structural') return 'structural';
  if (deployment.breaker.state !== 'closed') return deployment.breaker.state;
  return coolingUntilMs === undefined ? 'healthy' : 'cooling';
}
