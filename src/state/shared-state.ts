import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import type { Alert } from '../telemetry/alert-sender.js';
import type { RedisLink } from './redis-link.js';
import type { RedisTarget } from './redis-target.js';

/** What `/readyz` says of state: kept in this process by design, shared through Redis, or local for want of Redis. */
export type StateReadiness = 'memory' | 'shared' | 'degraded';

export interface SharedState {
  /** The Redis connection; undefined with `state.kind: memory`. */
  readonly link: RedisLink | undefined;
  readiness(): StateReadiness;
  close(): Promise<void>;
}

export interface SharedStateDeps {
  logger: Logger;
  alert(alert: Alert): void;
  /** Hears whether the gateway serves on local state for want of Redis (the `switchyard_state_degraded` gauge). */
  onDegraded(degraded: boolean): void;
}

/** How long a start waits for Redis before it serves on local state (and says so). */
const START_WAIT_MS = 2_000;

/**
 * The state the configuration names. With Redis the gateway never waits on it for long: it starts
 * after at most `START_WAIT_MS` whether Redis answers or not, and from then on each store falls
 * back to local state while the link is down and resynchronises when it returns. Losing and
 * regaining Redis is logged, alerted (`state_unavailable`, `state_restored`) and gauged.
 */
export async function openSharedState(state: Config['state'], deps: SharedStateDeps): Promise<SharedState> {
  if (state.kind === 'memory') {
    return { link: undefined, readiness: () => 'memory', close: async () => undefined };
  }
  // The Redis client is loaded only when state is shared: a memory-state gateway and the CLI start without it.
  const { RedisLink } = await import('./redis-link.js');
  let unavailableSinceMs: number | undefined;
  let lastResyncFailure: string | undefined;
  const link = new RedisLink({
    ...redisTargetOf(state),
    keyPrefix: state.key_prefix,
    onStatus(status) {
      deps.onDegraded(!status.up);
      if (!status.up) {
        unavailableSinceMs = Date.now();
        deps.logger.error({ reason: status.reason }, 'shared state unavailable: serving on local state until Redis answers again');
        deps.alert({ type: 'state_unavailable', reason: status.reason, since: new Date(unavailableSinceMs).toISOString() });
        return;
      }
      if (unavailableSinceMs === undefined) return;
      deps.logger.info({ outageMs: Date.now() - unavailableSinceMs }, 'shared state restored: Redis answers and local state has been merged into it');
      deps.alert({ type: 'state_restored', reason: 'Redis answers again; what was counted locally meanwhile was added to the shared state', since: new Date(unavailableSinceMs).toISOString() });
      unavailableSinceMs = undefined;
      lastResyncFailure = undefined;
    },
    onResyncFailed(reason) {
      // Retried every 200 ms while it fails: said once per reason, which is what keeps state local.
      if (reason === lastResyncFailure) return;
      lastResyncFailure = reason;
      deps.logger.warn({ reason }, 'shared state not restored yet: Redis answers, but merging local state into it failed; retrying');
    },
  });
  deps.onDegraded(true);
  return {
    link,
    readiness: () => (link.up ? 'shared' : 'degraded'),
    close: () => link.close(),
  };
}

/** Waits (bounded) for Redis to answer at start; the gateway serves either way. */
export async function awaitSharedState(shared: SharedState): Promise<void> {
  await shared.link?.ready(START_WAIT_MS);
}

/** The server, sentinels or cluster `state` names; the schema has made sure it names exactly one. */
function redisTargetOf(state: Exclude<Config['state'], { kind: 'memory' }>): RedisTarget {
  if (state.kind === 'redis-cluster') return { nodes: state.nodes, password: state.password };
  if (state.sentinels && state.master) return { sentinels: state.sentinels, master: state.master, password: state.password };
  if (state.url) return { url: state.url, password: state.password };
  throw new Error('state.kind redis needs url or sentinels with master');
}
