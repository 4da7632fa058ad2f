import { hashSecret, isWellFormedSecret } from './key-secret.js';
import type { KeyTeam, VirtualKey } from './virtual-key.js';

/** The one store call authentication needs (KeyStore has it; tests pass a counting fake). */
export interface KeyLookup {
  findByHash(hash: string): Promise<VirtualKey | undefined>;
}

/**
 * Where a key's team is read (teams/team-cache.ts keeps teams in memory). Refreshed with the keys,
 * so a team's change reaches every replica within the same interval as a key's.
 */
export interface TeamLookup {
  /** The team with this id; undefined: there is none (it was deleted). A store failure rejects. */
  teamOf(teamId: string): Promise<KeyTeam | undefined>;
  refresh(): Promise<void>;
  /** Forgets a team at once (changed or deleted), so its keys' next request reads it from the store. */
  forget(teamId: string): void;
}

export interface KeyCacheOptions {
  store: KeyLookup;
  /** Without it no key has a team (tests of keys alone). */
  teams?: TeamLookup;
  /** How long "no such key" is remembered, so repeating a forged key does not reach the store. */
  negativeTtlMs?: number;
  /** Bounds the memory a flood of distinct forged keys can take; the oldest are dropped first. */
  maxNegativeEntries?: number;
  nowMs?: () => number;
}

const DEFAULT_NEGATIVE_TTL_MS = 5_000;
const DEFAULT_MAX_NEGATIVE_ENTRIES = 10_000;
/**
 * How often a serving gateway re-reads the keys it knows: the longest a revocation made elsewhere
 * can go unseen when it could not be announced (another process, or Redis down).
 */
export const KNOWN_KEY_REFRESH_INTERVAL_MS = 30_000;

/**
 * Keys by the hash of their secret, in memory in front of the store: after a key's first
 * request, authenticating it is a hash and a Map lookup, and answering it needs no store.
 * Known keys (revoked and expired ones too, so the refusal can say why) stay until `forget`,
 * and are re-read from the store by `refresh` (`startRefreshing` runs it on a timer).
 */
export class KeyCache {
  private readonly store: KeyLookup;
  private readonly teams: TeamLookup | undefined;
  private readonly negativeTtlMs: number;
  private readonly maxNegativeEntries: number;
  private readonly nowMs: () => number;
  private readonly known = new Map<string, VirtualKey>();
  /** hash → when the "unknown" answer stops being trusted (epoch ms). Insertion order is age order. */
  private readonly unknownUntilMs = new Map<string, number>();
  /** One store lookup per hash at a time, however many requests arrive with a new key at once. */
  private readonly pending = new Map<string, Promise<VirtualKey | undefined>>();
  /** Bumped by `forget`: a lookup that started before a change must not cache what it read. */
  private generation = 0;
  private refreshTimer: NodeJS.Timeout | undefined;

  constructor(options: KeyCacheOptions) {
    this.store = options.store;
    this.teams = options.teams;
    this.negativeTtlMs = options.negativeTtlMs ?? DEFAULT_NEGATIVE_TTL_MS;
    this.maxNegativeEntries = options.maxNegativeEntries ?? DEFAULT_MAX_NEGATIVE_ENTRIES;
    this.nowMs = options.nowMs ?? Date.now;
  }

  /** The key this secret belongs to, or undefined. A store failure rejects (it is not "unknown"). */
  authenticate(secret: string): Promise<VirtualKey | undefined> {
    if (!isWellFormedSecret(secret)) return Promise.resolve(undefined);
    const hash = hashSecret(secret);
    const key = this.known.get(hash);
    if (key) return Promise.resolve(key);
    const unknownUntilMs = this.unknownUntilMs.get(hash);
    if (unknownUntilMs !== undefined) {
      if (unknownUntilMs > this.nowMs()) return Promise.resolve(undefined);
      this.unknownUntilMs.delete(hash);
    }
    const pending = this.pending.get(hash);
    if (pending) return pending;
    const lookup = this.lookUp(hash);
    this.pending.set(hash, lookup);
    const settle = () => {
      if (this.pending.get(hash) === lookup) this.pending.delete(hash);
    };
    lookup.then(settle, settle);
    return lookup;
  }

  /** The key's team as last read; undefined: it has none, or its team was deleted. A store failure rejects. */
  teamOf(key: VirtualKey): Promise<KeyTeam | undefined> {
    return key.teamId === null || !this.teams ? Promise.resolve(undefined) : this.teams.teamOf(key.teamId);
  }

  /**
   * Re-reads every known key from the store, one at a time, and keeps what it reads, then the
   * teams: a revocation that was never announced to this process (another replica revoked the key
   * while Redis was down) takes effect here after one refresh, and so does a team's change. A
   * store that fails keeps the cached key, so a store outage never turns a known key into a
   * refusal. Requests never wait on it.
   */
  async refresh(): Promise<void> {
    await this.refreshKeys();
    await this.teams?.refresh();
  }

  private async refreshKeys(): Promise<void> {
    for (const [hash, cached] of [...this.known]) {
      const generation = this.generation;
      let fresh: VirtualKey | undefined;
      try {
        fresh = await this.store.findByHash(hash);
      } catch {
        continue;
      }
      // A change heard meanwhile is newer than what was read; and only replace what is still there.
      if (generation !== this.generation || this.known.get(hash) !== cached) continue;
      if (fresh) this.known.set(hash, fresh);
      else this.known.delete(hash);
    }
  }

  /** Runs `refresh` every `intervalMs` in the background until `stopRefreshing`. */
  startRefreshing(intervalMs: number): void {
    this.stopRefreshing();
    let running = false;
    this.refreshTimer = setInterval(() => {
      // A slow store must not stack refreshes on top of each other.
      if (running) return;
      running = true;
      void this.refresh().finally(() => (running = false));
    }, intervalMs);
    this.refreshTimer.unref();
  }

  stopRefreshing(): void {
    clearInterval(this.refreshTimer);
    this.refreshTimer = undefined;
  }

  /**
   * Forgets a key (revoked, rotated or changed) or a team (changed or deleted) at once, by its id,
   * so its next request reads it from the store. Key and team ids never collide (`key_…`, `team_…`).
   */
  forget(id: string): void {
    this.teams?.forget(id);
    this.generation++;
    // New requests must not join a lookup that may have read the key before it changed.
    this.pending.clear();
    for (const [hash, key] of this.known) {
      if (key.id === id) this.known.delete(hash);
    }
  }

  private async lookUp(hash: string): Promise<VirtualKey | undefined> {
    const generation = this.generation;
    const key = await this.store.findByHash(hash);
    if (generation === this.generation) this.remember(hash, key);
    return key;
  }

  private remember(hash: string, key: VirtualKey | undefined): void {
    if (key) {
      this.known.set(hash, key);
      return;
    }
    if (this.unknownUntilMs.size >= this.maxNegativeEntries) {
      const oldest = this.unknownUntilMs.keys().next();
      if (!oldest.done) this.unknownUntilMs.delete(oldest.value);
    }
    this.unknownUntilMs.set(hash, this.nowMs() + this.negativeTtlMs);
  }
}
