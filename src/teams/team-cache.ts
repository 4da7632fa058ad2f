import type { TeamLookup } from '../keys/key-cache.js';
import type { Team } from './team.js';

/** The store calls the cache needs (TeamStore has them; tests pass a fake). */
export interface TeamReader {
  find(idOrName: string): Promise<Team | undefined>;
  list(): Promise<Team[]>;
}

/**
 * The teams of the keys this process serves, in memory in front of the store: a team is read the
 * first time one of its keys is, and then re-read with the keys (`KeyCache.refresh`), so a change
 * to its limits, budget or routes made on any replica holds here within that interval. A deleted
 * team is remembered as gone: its keys then have no team limits, without asking the store again.
 */
export class TeamCache implements TeamLookup {
  readonly #store: TeamReader;
  /** id → the team, or null once the store said there is none. */
  readonly #known = new Map<string, Team | null>();
  /** One store lookup per team at a time, however many of its keys arrive at once. */
  readonly #pending = new Map<string, Promise<Team | undefined>>();

  constructor(store: TeamReader) {
    this.#store = store;
  }

  teamOf(teamId: string): Promise<Team | undefined> {
    const known = this.#known.get(teamId);
    if (known !== undefined) return Promise.resolve(known ?? undefined);
    let pending = this.#pending.get(teamId);
    if (!pending) {
      pending = this.#lookUp(teamId).finally(() => this.#pending.delete(teamId));
      this.#pending.set(teamId, pending);
    }
    return pending;
  }

  /**
   * Re-reads every team (one query), keeping what it read for the teams known here. A store that
   * fails keeps what is cached: a store outage never takes a team's limits away. Never rejects.
   */
  async refresh(): Promise<void> {
    const before = new Map(this.#known);
    let teams: Team[];
    try {
      teams = await this.#store.list();
    } catch {
      return;
    }
    const read = new Map(teams.map((team) => [team.id, team]));
    // Only what is still as it was: a team first read meanwhile is newer than this list.
    for (const [id, cached] of before) if (this.#known.get(id) === cached) this.#known.set(id, read.get(id) ?? null);
  }

  forget(teamId: string): void {
    this.#known.delete(teamId);
    // A lookup under way may have read the team before it changed: the next one starts afresh.
    this.#pending.delete(teamId);
  }

  async #lookUp(teamId: string): Promise<Team | undefined> {
    const found = await this.#store.find(teamId);
    // `find` falls back to a team's name: only the team with this id is this key's.
    const team = found?.id === teamId ? found : undefined;
    this.#known.set(teamId, team ?? null);
    return team;
  }
}
