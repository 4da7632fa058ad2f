import { deploymentKey } from '../core/deployment-key.js';
import type { AffinityOutcome } from '../core/request-record.js';
import type { ResolvedRoute, ResolvedTarget } from './resolve-route.js';
import type { SessionBindings } from './session-bindings.js';

/** A session's standing on one route, read before the attempt loop. */
export interface SessionBinding {
  /** The route and the session's hash: the session's own key in the bindings. */
  readonly key: string;
  readonly idleMs: number;
  /** The target the session is bound to; undefined when it has none, or one the route no longer has. */
  readonly bound: ResolvedTarget | undefined;
}

/**
 * Session affinity (docs/sessions.md): a session goes first to the target that last served it on
 * its route, whatever the route's strategy, so the provider's prompt cache for it is used. The
 * binding moves to whichever target serves (a failover moves it), and only lapses after the
 * route's `affinity.idle_s` without the session's requests: then the strategy picks afresh.
 */
export class SessionAffinity {
  readonly #bindings: SessionBindings;

  constructor(bindings: SessionBindings) {
    this.#bindings = bindings;
  }

  /**
   * Where the session stands on `route`, its idle time started again (every request counts, even
   * one no target will serve); undefined without a session or with `affinity: off`. `session` is
   * the session's hash (`sessionHash`, as the record keeps it): the id itself is never a key.
   */
  async lookup(route: ResolvedRoute, session: string | undefined): Promise<SessionBinding | undefined> {
    const { affinity } = route.policy;
    if (session === undefined || affinity === 'off') return undefined;
    const key = `${route.name}:${session}`;
    const idleMs = affinity.idle_s * 1000;
    const boundTo = await this.#bindings.renew(key, idleMs);
    const bound = boundTo === undefined ? undefined : route.targets.find((target) => keyOf(target) === boundTo);
    return { key, idleMs, bound };
  }

  /**
   * `served` answered the session's request: the session is bound to it from now on. Bound again
   * even when it was already, so that a request longer than the idle time does not outlive its binding.
   */
  served(binding: SessionBinding, served: ResolvedTarget): AffinityOutcome {
    this.#bindings.bind(binding.key, keyOf(served), binding.idleMs);
    if (binding.bound === served) return 'bound';
    return binding.bound === undefined ? 'new' : 'moved';
  }
}

function keyOf(target: ResolvedTarget): string {
  return deploymentKey(target.connectionName, target.routedModel);
}
