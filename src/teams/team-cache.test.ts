import { describe, expect, it } from 'vitest';
import { DEFAULT_EXPLORATION_TTL_S, type Team } from './team.js';
import { TeamCache, type TeamReader } from './team-cache.js';

function sampleTeam(overrides: Partial<Team> = {}): Team {
  return {
    id: 'team_search',
    name: 'search',
    budget: null,
    rpm: 10,
    tpm: null,
    routes: null,
    exploration: { maxTtlS: DEFAULT_EXPLORATION_TTL_S, rpm: null, tpm: null, budget: null },
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** Teams by id, counting the store's calls; `down` fails them; `gate` holds lookups until opened. */
class FakeTeams implements TeamReader {
  readonly byId = new Map<string, Team>();
  finds = 0;
  lists = 0;
  down = false;
  gate: Promise<void> | undefined;

  async find(idOrName: string): Promise<Team | undefined> {
    this.finds++;
    await this.gate;
    if (this.down) throw new Error('store unreachable');
    return this.byId.get(idOrName) ?? [...this.byId.values()].find((team) => team.name === idOrName);
  }

  async list(): Promise<Team[]> {
    this.lists++;
    if (this.down) throw new Error('store unreachable');
    return [...this.byId.values()];
  }
}

describe('TeamCache', () => {
  it('reads a team once, however many of its keys arrive at once, then answers from memory', async () => {
    const store = new FakeTeams();
    store.byId.set('team_search', sampleTeam());
    const cache = new TeamCache(store);
    const teams = await Promise.all(Array.from({ length: 10 }, () => cache.teamOf('team_search')));
    expect(teams.every((team) => team?.rpm === 10)).toBe(true);
    store.down = true;
    expect((await cache.teamOf('team_search'))?.name).toBe('search');
    expect(store.finds).toBe(1);
  });

  it('a refresh reads a change to the team made elsewhere, in one query for every team', async () => {
    const store = new FakeTeams();
    store.byId.set('team_search', sampleTeam());
    store.byId.set('team_ads', sampleTeam({ id: 'team_ads', name: 'ads' }));
    const cache = new TeamCache(store);
    await cache.teamOf('team_search');
    await cache.teamOf('team_ads');
    store.byId.set('team_search', sampleTeam({ rpm: 2, routes: ['search-*'] }));
    await cache.refresh();
    expect(await cache.teamOf('team_search')).toMatchObject({ rpm: 2, routes: ['search-*'] });
    expect(store.lists).toBe(1);
    expect(store.finds).toBe(2);
  });

  it('a deleted team is remembered as gone after a refresh, and not asked for again', async () => {
    const store = new FakeTeams();
    store.byId.set('team_search', sampleTeam());
    const cache = new TeamCache(store);
    expect(await cache.teamOf('team_search')).toBeDefined();
    store.byId.delete('team_search');
    await cache.refresh();
    expect(await cache.teamOf('team_search')).toBeUndefined();
    expect(await cache.teamOf('team_search')).toBeUndefined();
    expect(store.finds).toBe(1);
  });

  it('keeps what it holds while the store is down, and passes a failed first read on without remembering it', async () => {
    const store = new FakeTeams();
    store.byId.set('team_search', sampleTeam());
    const cache = new TeamCache(store);
    await cache.teamOf('team_search');
    store.down = true;
    await cache.refresh();
    expect((await cache.teamOf('team_search'))?.rpm).toBe(10);
    await expect(cache.teamOf('team_ads')).rejects.toThrow('store unreachable');
    store.down = false;
    store.byId.set('team_ads', sampleTeam({ id: 'team_ads', name: 'ads' }));
    expect((await cache.teamOf('team_ads'))?.name).toBe('ads');
  });

  it('takes a team by its id only, never one whose name is that id', async () => {
    const store = new FakeTeams();
    store.byId.set('team_other', sampleTeam({ id: 'team_other', name: 'team_gone' }));
    expect(await new TeamCache(store).teamOf('team_gone')).toBeUndefined();
  });

  it('a team first read while a refresh was running is kept, not overwritten by the older list', async () => {
    const store = new FakeTeams();
    store.byId.set('team_search', sampleTeam());
    const cache = new TeamCache(store);
    await cache.teamOf('team_search');
    const refreshing = cache.refresh();
    // The list was read before team_ads existed; team_ads is read on its own meanwhile.
    store.byId.set('team_ads', sampleTeam({ id: 'team_ads', name: 'ads' }));
    expect(await cache.teamOf('team_ads')).toBeDefined();
    await refreshing;
    expect(await cache.teamOf('team_ads')).toBeDefined();
  });
});
