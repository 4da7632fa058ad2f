import { describe, expect, it } from 'vitest';
import type { GateRequest } from '../../src/admission/admission-gate.js';
import { RedisAdmissionGate } from '../../src/state/redis-admission-gate.js';
import { redisForThisFile } from '../support/redis-server.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { replicaLinks } from './two-replicas.js';

const redis = redisForThisFile();
const links = replicaLinks();

const PERIOD_START_MS = Date.parse('2026-12-01T00:00:00Z');
const request = (overrides: Partial<GateRequest> = {}): GateRequest => ({ keyId: 'key_a', rpm: null, tpm: null, estimatedTokens: 10, nowMs: Date.now(), ...overrides });
const budgeted = (maxCostMicros: number, budgetMicros: number): Partial<GateRequest> => ({
  budget: { budgetMicros, periodStartMs: PERIOD_START_MS, maxCostMicros },
});

async function twoGates(options: { reservationLeaseMs?: number } = {}): Promise<[RedisAdmissionGate, RedisAdmissionGate]> {
  const url = redis.server().url;
  const ledgerSpentMicros = async () => 0;
  return [new RedisAdmissionGate(await links.open(url), { ledgerSpentMicros, ...options }), new RedisAdmissionGate(await links.open(url), { ledgerSpentMicros, ...options })];
}

describe.runIf(redis.available)('two replicas on one Redis', () => {
  it('10 concurrent requests over two replicas with a budget of two requests’ worth: two are admitted', async () => {
    const [a, b] = await twoGates();
    const admissions = await Promise.all(Array.from({ length: 10 }, (_, index) => (index % 2 ? a : b).admit(request(budgeted(40_000, 80_000)))));
    expect(admissions.filter((admission) => admission.ok)).toHaveLength(2);
    expect(await a.reservedMicros('key_a')).toBe(80_000);
    expect(await b.reservedMicros('key_a')).toBe(80_000);
  });

  it('rpm 4, eight requests alternating between two replicas: exactly four are admitted', async () => {
    const [a, b] = await twoGates();
    const admitted: boolean[] = [];
    for (let index = 0; index < 8; index++) admitted.push((await (index % 2 ? a : b).admit(request({ rpm: 4 }))).ok);
    expect(admitted).toEqual([true, true, true, true, false, false, false, false]);
  });

  it('a request settled on one replica frees its budget for the other', async () => {
    const [a, b] = await twoGates();
    const first = await a.admit(request(budgeted(60_000, 100_000)));
    expect(await b.admit(request(budgeted(60_000, 100_000)))).toEqual({ ok: false, limit: 'budget', availableMicros: 40_000 });
    if (!first.ok) throw new Error('the first request was refused');
    first.ticket.settle({ tokens: 10, costMicros: 20_000 }, Date.now());
    await a.flush();
    expect((await b.admit(request(budgeted(60_000, 100_000)))).ok).toBe(true);
  });

  it('settlements made together go to Redis as one call, and each counts once', async () => {
    const [a, b] = await twoGates();
    const admissions = await Promise.all(Array.from({ length: 20 }, () => a.admit(request(budgeted(1_000, 1_000_000)))));
    const link = await links.open(redis.server().url);
    // Script runs of any form: the first run of a script is an EVAL, later ones EVALSHA.
    const settleCalls = async () =>
      [...(await link.commands.info('commandstats')).matchAll(/cmdstat_eval(?:sha)?:calls=(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0);
    const before = await settleCalls();
    for (const admission of admissions) if (admission.ok) admission.ticket.settle({ tokens: 10, costMicros: 300 }, Date.now());
    await a.flush();
    // One script call for the twenty settlements (the INFO calls are not scripts).
    expect((await settleCalls()) - before).toBe(1);
    expect(await b.reservedMicros('key_a')).toBe(0);
    // The twenty real costs, counted once: 1 000 000 − 6 000 spent leaves room for 994 reservations of 1 000.
    expect(await b.admit(request(budgeted(994_000, 1_000_000)))).toMatchObject({ ok: true });
    expect(await b.admit(request(budgeted(1, 1_000_000)))).toMatchObject({ ok: false, limit: 'budget', availableMicros: 0 });
  });

  it('a reservation held by a replica that died is released when its lease lapses', async () => {
    const [a, b] = await twoGates({ reservationLeaseMs: 300 });
    // Admitted on a, which never settles it (it died).
    expect((await a.admit(request(budgeted(60_000, 100_000)))).ok).toBe(true);
    expect(await b.admit(request(budgeted(60_000, 100_000)))).toMatchObject({ ok: false, limit: 'budget' });
    await eventually(async () => (await b.reservedMicros('key_a')) === 0, 5_000, 'the lapsed lease to release the reservation');
    expect((await b.admit(request(budgeted(60_000, 100_000)))).ok).toBe(true);
  });
});

describe.runIf(redis.available)('two replicas on one Redis, keys of one team', () => {
  const ofTeam = (keyId: string, team: Partial<NonNullable<GateRequest['team']>>, key: Partial<GateRequest> = {}): GateRequest =>
    request({ keyId, ...key, team: { teamId: 'team_t', rpm: null, tpm: null, ...team } });

  it("team rpm 4, eight requests of two keys alternating between two replicas: exactly four are admitted, each key's own rpm larger", async () => {
    const [a, b] = await twoGates();
    const admitted: boolean[] = [];
    for (let index = 0; index < 8; index++) admitted.push((await (index % 2 ? a : b).admit(ofTeam(index < 4 ? 'key_a' : 'key_b', { rpm: 4 }, { rpm: 10 }))).ok);
    expect(admitted).toEqual([true, true, true, true, false, false, false, false]);
  });

  it("20 concurrent requests of two keys over two replicas against a team budget of two requests' worth: two are admitted, each key's budget larger", async () => {
    const [a, b] = await twoGates();
    const team = { budget: { budgetMicros: 80_000, periodStartMs: PERIOD_START_MS, maxCostMicros: 40_000 } };
    const admissions = await Promise.all(
      Array.from({ length: 20 }, (_, index) => (index % 2 ? a : b).admit(ofTeam(index % 4 < 2 ? 'key_a' : 'key_b', team, budgeted(40_000, 1_000_000)))),
    );
    expect(admissions.filter((admission) => admission.ok)).toHaveLength(2);
    expect(admissions.filter((admission) => !admission.ok && admission.refusedBy === 'team')).toHaveLength(18);
    expect(await a.reservedMicros('team_t')).toBe(80_000);
    expect((await b.reservedMicros('key_a', 'team_t')) + (await b.reservedMicros('key_b', 'team_t'))).toBe(80_000);
  });
});
