import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { GateAdmission, GateRequest } from '../../src/admission/admission-gate.js';
import { RedisAdmissionGate } from '../../src/state/redis-admission-gate.js';
import type { RedisLink } from '../../src/state/redis-link.js';
import { redisForThisFile } from '../support/redis-server.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { replicaLinks } from './two-replicas.js';

const redis = redisForThisFile();
const links = replicaLinks();

const PERIOD_START_MS = Date.parse('2026-12-01T00:00:00Z');
// Each request may cost 30,000 and does; the budget holds three.
const request = (overrides: Partial<GateRequest> = {}): GateRequest => ({
  keyId: 'key_a',
  rpm: null,
  tpm: null,
  estimatedTokens: 10,
  nowMs: Date.now(),
  budget: { budgetMicros: 100_000, periodStartMs: PERIOD_START_MS, maxCostMicros: 30_000 },
  ...overrides,
});
const COST = { tokens: 10, costMicros: 30_000 };

function settle(admission: GateAdmission): void {
  if (!admission.ok) throw new Error(`refused by ${admission.limit}`);
  admission.ticket.settle(COST, Date.now());
}

/** The spend and reservations Redis holds for a key or a team: `counters` is `{key_a}` (a key alone), `{team_t}` (a team) or `{team_t}:key_a` (a key of it). */
async function sharedFigures(prefix: string, counters = '{key_a}'): Promise<{ spent: number; reserved: number }> {
  const client = new Redis(redis.server().url, { maxRetriesPerRequest: 0 });
  try {
    const [spent, reserved] = await client.hmget(`${prefix}gate:${counters}:budget`, 'spent', 'reserved');
    return { spent: Number(spent), reserved: Number(reserved) };
  } finally {
    client.disconnect();
  }
}

describe.runIf(redis.available)('admission while Redis is out of reach', () => {
  it('Redis killed: admits locally against the last figures Redis gave, and after its return the ledger, not a second count, is the spend', async () => {
    const server = redis.server();
    let ledgerMicros = 0;
    const ledgerSpentMicros = async () => ledgerMicros;
    const linkA: RedisLink = await links.open(server.url);
    const a = new RedisAdmissionGate(linkA, { ledgerSpentMicros });
    const b = new RedisAdmissionGate(await links.open(server.url), { ledgerSpentMicros });
    settle(await a.admit(request()));
    await a.flush();
    // rpm 2 with one request used, as Redis last said.
    expect((await a.admit(request({ keyId: 'key_r', rpm: 2, budget: undefined }))).ok).toBe(true);

    await server.stop();
    await eventually(() => !linkA.up, 5_000, 'the link to notice Redis is gone');
    // Redis last said 30,000 spent (the ledger, not written yet, says 0): two more fit, not three.
    const local = [await a.admit(request()), await a.admit(request())];
    expect(await a.admit(request())).toEqual({ ok: false, limit: 'budget', availableMicros: 10_000 });
    expect((await a.admit(request({ keyId: 'key_r', rpm: 2, budget: undefined }))).ok).toBe(true);
    expect(await a.admit(request({ keyId: 'key_r', rpm: 2, budget: undefined }))).toMatchObject({ ok: false, limit: 'rpm' });
    local.forEach(settle);
    expect(await a.reservedMicros('key_a')).toBe(0);

    // Redis returns empty; by now the ledger has every request written.
    ledgerMicros = 90_000;
    await server.start();
    await eventually(() => linkA.up, 10_000, 'the link to resync');
    expect(await b.admit(request())).toEqual({ ok: false, limit: 'budget', availableMicros: 10_000 });
    expect(await sharedFigures(links.prefix())).toEqual({ spent: 90_000, reserved: 0 });
  });

  it('Redis stalls (calls time out, its data kept): the outage spend is added to the shared counters exactly once, and a lost reservation is released', async () => {
    const server = redis.server();
    const ledgerSpentMicros = async () => 0;
    const a = new RedisAdmissionGate(await links.open(server.url), { ledgerSpentMicros });
    const b = new RedisAdmissionGate(await links.open(server.url), { ledgerSpentMicros });
    settle(await a.admit(request()));
    await a.flush();

    const admin = new Redis(server.url, { maxRetriesPerRequest: 0 });
    try {
      // Redis takes every write and answers none of them until unpaused: each call times out,
      // yet runs later — the case where a resend must not count twice.
      await admin.call('CLIENT', 'PAUSE', '20000', 'WRITE');
      const stalled = await a.admit(request());
      expect(stalled.ok).toBe(true);
      settle(stalled);
      await expect(a.flush()).rejects.toThrow(/kept for the next try/);
    } finally {
      await admin.call('CLIENT', 'UNPAUSE');
      admin.disconnect();
    }
    await a.flush();
    expect(await sharedFigures(links.prefix())).toEqual({ spent: 60_000, reserved: 0 });
    settle(await b.admit(request()));
    await b.flush();
    expect(await sharedFigures(links.prefix())).toEqual({ spent: 90_000, reserved: 0 });
    expect(await b.admit(request())).toEqual({ ok: false, limit: 'budget', availableMicros: 10_000 });
  });

  it('Redis stalls: a request admitted locally against rpm counts once against the shared bucket, though its merge is sent again', async () => {
    const server = redis.server();
    const ledgerSpentMicros = async () => 0;
    const a = new RedisAdmissionGate(await links.open(server.url), { ledgerSpentMicros });
    const b = new RedisAdmissionGate(await links.open(server.url), { ledgerSpentMicros });
    const limited = () => request({ keyId: 'key_r', rpm: 3, budget: undefined, nowMs: Date.now() });
    const admin = new Redis(server.url, { maxRetriesPerRequest: 0 });
    try {
      await admin.call('CLIENT', 'PAUSE', '20000', 'WRITE');
      // Another key's call times out (Redis runs it later): local state until Redis takes writes,
      // since the release of its reservation waits for them.
      expect((await a.admit(request())).ok).toBe(true);
      expect((await a.admit(limited())).ok).toBe(true);
      await expect(a.flush()).rejects.toThrow(/kept for the next try/);
    } finally {
      await admin.call('CLIENT', 'UNPAUSE');
      admin.disconnect();
    }
    // The merge that timed out ran after all; this resend of it is not counted again.
    await a.flush();
    expect((await b.admit(limited())).ok).toBe(true);
    expect((await b.admit(limited())).ok).toBe(true);
    expect(await b.admit(limited())).toMatchObject({ ok: false, limit: 'rpm' });
  });

  it("Redis stalls: a team's spend and requests counted locally reach the team's shared counters exactly once, and its key's", async () => {
    const server = redis.server();
    const ledgerSpentMicros = async () => 0;
    const a = new RedisAdmissionGate(await links.open(server.url), { ledgerSpentMicros });
    const b = new RedisAdmissionGate(await links.open(server.url), { ledgerSpentMicros });
    // The team's budget holds three requests and its minute three; each key's own are larger.
    const team = { teamId: 'team_t', rpm: 3, tpm: null, budget: { budgetMicros: 100_000, periodStartMs: PERIOD_START_MS, maxCostMicros: 30_000 } };
    const ofTeam = (keyId: string) => request({ keyId, rpm: 10, budget: { budgetMicros: 1_000_000, periodStartMs: PERIOD_START_MS, maxCostMicros: 30_000 }, team, nowMs: Date.now() });
    settle(await a.admit(ofTeam('key_a')));
    await a.flush();

    const admin = new Redis(server.url, { maxRetriesPerRequest: 0 });
    try {
      await admin.call('CLIENT', 'PAUSE', '20000', 'WRITE');
      // Another key's call times out (Redis runs it later): the team's request is then admitted locally.
      expect((await a.admit(request({ keyId: 'key_other' }))).ok).toBe(true);
      const local = await a.admit(ofTeam('key_a'));
      expect(local.ok).toBe(true);
      settle(local);
      await expect(a.flush()).rejects.toThrow(/kept for the next try/);
    } finally {
      await admin.call('CLIENT', 'UNPAUSE');
      admin.disconnect();
    }
    // The merges that timed out ran after all; these resends of them are not counted again.
    await a.flush();
    expect(await sharedFigures(links.prefix(), '{team_t}')).toEqual({ spent: 60_000, reserved: 0 });
    expect(await sharedFigures(links.prefix(), '{team_t}:key_a')).toEqual({ spent: 60_000, reserved: 0 });

    settle(await b.admit(ofTeam('key_b')));
    await b.flush();
    expect(await sharedFigures(links.prefix(), '{team_t}')).toEqual({ spent: 90_000, reserved: 0 });
    // Three requests in the team's minute: the one admitted locally counted once.
    expect(await b.admit(ofTeam('key_c'))).toMatchObject({ ok: false, limit: 'rpm', refusedBy: 'team' });
  });
});
