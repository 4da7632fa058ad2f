/**
 * Bindings kept in one process at most: past it the least recently used go first. An entry is a
 * route name, a session hash and a `connection/model`, some 200 bytes: 100 000 is about 20 MB,
 * room for every session a busy replica sees in a typical `idle_s`.
 */
const MAX_LOCAL_SESSION_BINDINGS = 100_000;

/**
 * Where session affinity keeps which target each session is bound to (docs/sessions.md), under a
 * key made of the route and the session's hash. A binding lapses after `idleMs` without being
 * renewed or bound again. Neither call ever fails: a store that cannot answer has no binding.
 */
export interface SessionBindings {
  /** The target (`connection/model`) the session is bound to, its idle time started again; undefined when it has none. */
  renew(key: string, idleMs: number): string | undefined | Promise<string | undefined>;
  /** Binds the session to `target` for `idleMs` from now. */
  bind(key: string, target: string, idleMs: number): void;
}

export interface LocalSessionBindingsOptions {
  /** Default `MAX_LOCAL_SESSION_BINDINGS`. */
  maxEntries?: number;
  now?: () => number;
  /** Hears every binding dropped for room while its idle time still ran (`switchyard_affinity_evictions_total`). */
  onEvicted?: () => void;
}

/** Bindings in this process: a bounded map whose order is that of last use, oldest first. */
export class LocalSessionBindings implements SessionBindings {
  readonly #entries = new Map<string, { target: string; expiresAtMs: number }>();
  readonly #maxEntries: number;
  readonly #now: () => number;
  readonly #onEvicted: () => void;

  constructor(options: LocalSessionBindingsOptions = {}) {
    this.#maxEntries = options.maxEntries ?? MAX_LOCAL_SESSION_BINDINGS;
    this.#now = options.now ?? Date.now;
    this.#onEvicted = options.onEvicted ?? (() => undefined);
  }

  renew(key: string, idleMs: number): string | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.expiresAtMs <= this.#now()) return undefined;
    this.#entries.set(key, { target: entry.target, expiresAtMs: this.#now() + idleMs });
    return entry.target;
  }

  bind(key: string, target: string, idleMs: number): void {
    this.#entries.delete(key);
    this.#entries.set(key, { target, expiresAtMs: this.#now() + idleMs });
    if (this.#entries.size <= this.#maxEntries) return;
    const [oldestKey, oldest] = this.#entries.entries().next().value!;
    this.#entries.delete(oldestKey);
    // One that had lapsed already was lost to idleness, not to the bound.
    if (oldest.expiresAtMs > this.#now()) this.#onEvicted();
  }
}
