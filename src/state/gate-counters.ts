import type { GateRequest, GateSubject } from '../admission/admission-gate.js';
import { taggedKey } from './tagged-key.js';

/**
 * Where one subject's gate counters live in Redis: a key's or a team's, by its id, under a hash
 * tag. A key without a team has its own id as its tag (`gate:{key_…}:rate`); a key of a team has
 * its team's (`gate:{team_…}:key_…:rate`), beside the team's own (`gate:{team_…}:rate`), so one
 * script may take the key's and the team's together on a Redis Cluster. A whole team's traffic
 * then meets on one node: the price of deciding the key and its team in one atomic call.
 */
export interface GateCounters {
  id: string;
  tag: string;
}

/** The counters of the request's subjects (`subjectsOf`: the key's, then its team's), in order. */
export function countersOf(request: GateRequest, subjects: readonly GateSubject[]): GateCounters[] {
  // A key of a team is counted under its team's tag whether or not the team sets limits of its own.
  const tag = request.team?.teamId ?? request.keyId;
  return subjects.map(({ id }) => ({ id, tag }));
}

/** The counters of a key or a team by id; `teamId`: a key's team, when it has one. */
export function countersById(id: string, teamId?: string | null): GateCounters {
  return { id, tag: teamId ?? id };
}

export type CounterKeys = [rate: string, budget: string, open: string, holds: string];

/** The four Redis keys of a subject (the scripts take them together). */
export function counterKeys(link: { key(name: string): string }, counters: GateCounters): CounterKeys {
  const key = (part: string) => taggedKey(link, 'gate', counters.tag, counters.id === counters.tag ? part : `${counters.id}:${part}`);
  return [key('rate'), key('budget'), key('open'), key('holds')];
}

/** Where Redis remembers a merge was applied, under the subject's tag: the merge scripts take it with the subject's counters. */
export function mergeMarker(link: { key(name: string): string }, counters: GateCounters, mergeId: string): string {
  return taggedKey(link, 'gate', counters.tag, `merged:${mergeId}`);
}
