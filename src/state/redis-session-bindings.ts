import type { LocalSessionBindings, SessionBindings } from '../routing/session-bindings.js';
import type { RedisLink } from './redis-link.js';

/**
 * Session bindings shared by the fleet (docs/sessions.md): one Redis key per session and route,
 * holding the bound `connection/model`, which lapses after the route's idle time (its TTL, set
 * again by every request). Every binding is also kept in this replica's memory, which answers
 * while Redis does not — and when Redis has lost a binding this replica still holds (a restarted
 * Redis), which it then puts back.
 */
export class RedisSessionBindings implements SessionBindings {
  readonly #link: RedisLink;
  readonly #local: LocalSessionBindings;

  constructor(link: RedisLink, local: LocalSessionBindings) {
    this.#link = link;
    this.#local = local;
  }

  async renew(key: string, idleMs: number): Promise<string | undefined> {
    const local = this.#local.renew(key, idleMs);
    if (!this.#link.up) return local;
    let shared: string | null;
    try {
      shared = await this.#link.commands.getex(this.#keyOf(key), 'PX', ttlOf(idleMs));
    } catch {
      return local;
    }
    if (shared === null) {
      if (local !== undefined) this.#share(key, local, idleMs);
      return local;
    }
    // Another replica may have moved it: this replica's copy follows.
    if (shared !== local) this.#local.bind(key, shared, idleMs);
    return shared;
  }

  bind(key: string, target: string, idleMs: number): void {
    this.#local.bind(key, target, idleMs);
    if (this.#link.up) this.#share(key, target, idleMs);
  }

  /** Fire and forget: a write Redis misses costs one request on another replica its binding. */
  #share(key: string, target: string, idleMs: number): void {
    this.#link.commands.set(this.#keyOf(key), target, 'PX', ttlOf(idleMs)).catch(() => undefined);
  }

  #keyOf(key: string): string {
    return this.#link.key(`affinity:${key}`);
  }
}

/** Redis takes whole milliseconds, at least one. */
function ttlOf(idleMs: number): number {
  return Math.max(1, Math.ceil(idleMs));
}
