import type { SharedBreakerState } from '../health/breaker.js';
import type { CoolingCause, SharedCooling } from '../health/cooling.js';
import type { ProbePurpose } from '../health/health-monitor.js';
import type { DeploymentHealth } from '../health/health-registry.js';
import type { QuotaSnapshot } from '../health/quota-headers.js';
import type { SharedStructuralState } from '../health/structural-fault.js';
import type { StructuralKind } from '../core/failure-policy.js';
import type { RedisLink } from './redis-link.js';
import { taggedKey } from './tagged-key.js';

/** The channel every replica publishes its health changes on and hears the others' from. */
export const CHANNEL = 'health';
/** Records of deployments nobody uses any more go after a day; every change renews them. */
export const RECORD_TTL_S = 86_400;
/** The key of each kind of probe lease (`health:{<deployment>}:<name>`). */
export const PROBE_LEASES: Readonly<Record<ProbePurpose, string>> = { structural: 'probe', recovery: 'recovery-probe' };

export type Generation = { gen: number };
export type BreakerRecord = SharedBreakerState & Generation;
export type StructuralRecord = SharedStructuralState & Generation;
export type ConnectionFault = { cause: StructuralKind; reason: string; sinceMs: number };

/** What replicas publish on `CHANNEL`. */
export type HealthMessage =
  | { kind: 'breaker'; key: string; record: BreakerRecord }
  | { kind: 'structural'; key: string; record: StructuralRecord }
  | { kind: 'connection'; connection: string; fault: ConnectionFault | null }
  | { kind: 'trial_free'; key: string }
  // `cause` is absent from replicas of older versions.
  | { kind: 'cooling'; key: string; coolingMs: number; cause?: CoolingCause; from: string }
  | { kind: 'quota'; key: string; snapshot: QuotaSnapshot; from: string };

export type DeploymentRecord = 'breaker' | 'trial' | 'structural' | 'cooling' | 'quota' | (typeof PROBE_LEASES)[ProbePurpose];

/** A key of one deployment's shared health: all of them under its hash tag. */
export function healthKey(link: RedisLink, deployment: string, record: DeploymentRecord): string {
  return taggedKey(link, 'health', deployment, record);
}

/** The key of a connection's fault (a rejected key puts every deployment of it out). */
export function connectionKey(link: RedisLink, connection: string): string {
  return link.key(`health:connection:${connection}`);
}

/** What Redis holds of one deployment; each part undefined when absent or unreadable. */
export interface StoredDeploymentHealth {
  breaker: BreakerRecord | undefined;
  structural: StructuralRecord | undefined;
  connectionFault: ConnectionFault | undefined;
  /** The cooling still to run, with its length and cause; an older version stored neither, so then all that is known is what is left. */
  cooling: { leftMs: number; shared: SharedCooling } | undefined;
  quota: QuotaSnapshot | undefined;
}

/** Reads the shared records of these deployments; one call per key, not one pipeline: on a cluster they live in different slots (and nodes). */
export async function readDeploymentHealth(link: RedisLink, deployments: readonly DeploymentHealth[]): Promise<StoredDeploymentHealth[]> {
  const commands = link.commands;
  return Promise.all(
    deployments.map(async (deployment) => {
      const [breaker, structural, connection, coolingLeftMs, cooling, quota] = await Promise.all([
        commands.get(healthKey(link, deployment.key, 'breaker')),
        commands.get(healthKey(link, deployment.key, 'structural')),
        commands.get(connectionKey(link, deployment.connection)),
        commands.pttl(healthKey(link, deployment.key, 'cooling')),
        commands.get(healthKey(link, deployment.key, 'cooling')),
        commands.get(healthKey(link, deployment.key, 'quota')),
      ]);
      const shared = parsed<Partial<SharedCooling>>(cooling);
      return {
        breaker: parsed<BreakerRecord>(breaker),
        structural: parsed<StructuralRecord>(structural),
        connectionFault: parsed<ConnectionFault>(connection),
        cooling:
          typeof coolingLeftMs === 'number' && coolingLeftMs > 0
            ? { leftMs: coolingLeftMs, shared: { coolingMs: shared?.coolingMs ?? coolingLeftMs, cause: shared?.cause } }
            : undefined,
        quota: parsed<QuotaSnapshot>(quota),
      };
    }),
  );
}

/** Redis expiries are whole milliseconds, and at least one. */
export function wholeMs(ms: number): number {
  return Math.max(1, Math.ceil(ms));
}

/** A stored JSON value, or undefined when there is none or it does not parse (it is then left to be overwritten). */
function parsed<Value>(stored: unknown): Value | undefined {
  if (typeof stored !== 'string') return undefined;
  try {
    return JSON.parse(stored) as Value;
  } catch {
    return undefined;
  }
}
