import { describe, expect, it } from 'vitest';
import {
  InMemoryAdmissionGate,
  type AdmissionGate,
  type AdmissionTicket,
  type GateAdmission,
  type GateBudget,
  type GateRequest,
} from '../../src/admission/admission-gate.js';
import { RedisAdmissionGate } from '../../src/state/redis-admission-gate.js';
import { redisForThisFile } from '../support/redis-server.js';
import { replicaLinks } from './two-replicas.js';

const redis = redisForThisFile();
const links = replicaLinks();

interface GateUnderTest {
  gate: AdmissionGate;
  /** Resolves once every settlement made so far has reached the gate's state. */
  settled(): Promise<void>;
  ledgerReads: number;
}

type Ledger = (keyId: string, sinceMs: number) => Promise<number>;

const implementations: [string, boolean, (ledger: Ledger) => Promise<GateUnderTest>][] = [
  ['memory', true, async (ledger) => withLedgerCount(ledger, (counted) => new InMemoryAdmissionGate({ ledgerSpentMicros: counted }), async () => undefined)],
  [
    'redis',
    redis.available,
    async (ledger) => {
      const link = await links.open(redis.server().url);
      let gate: RedisAdmissionGate | undefined;
      return withLedgerCount(ledger, (counted) => (gate = new RedisAdmissionGate(link, { ledgerSpentMicros: counted })), () => gate!.flush());
    },
  ],
];

function withLedgerCount(ledger: Ledger, make: (counted: Ledger) => AdmissionGate, settled: () => Promise<void>): GateUnderTest {
  const result: GateUnderTest = { gate: undefined as unknown as AdmissionGate, settled, ledgerReads: 0 };
  result.gate = make((keyId, sinceMs) => {
    result.ledgerReads++;
    return ledger(keyId, sinceMs);
  });
  return result;
}

const PERIOD_START_MS = Date.parse('2026-12-01T00:00:00Z');
const request = (overrides: Partial<GateRequest> = {}): GateRequest => ({ keyId: 'key_a', rpm: null, tpm: null, estimatedTokens: 10, nowMs: Date.now(), ...overrides });
const budgeted = (maxCostMicros: number, budgetMicros = 100_000): Partial<GateRequest> => ({
  budget: { budgetMicros, periodStartMs: PERIOD_START_MS, maxCostMicros },
});

function ticketOf(admission: GateAdmission): AdmissionTicket {
  if (!admission.ok) throw new Error(`refused by ${admission.limit}`);
  return admission.ticket;
}

describe.each(implementations)('the %s admission gate', (_name, available, open) => {
  it.runIf(available)('refuses the 4th request of a burst at rpm 3 with the wait for one request to refill', async () => {
    const { gate } = await open(async () => 0);
    for (let index = 0; index < 3; index++) expect((await gate.admit(request({ rpm: 3 }))).ok).toBe(true);
    const refused = await gate.admit(request({ rpm: 3 }));
    expect(refused).toMatchObject({ ok: false, limit: 'rpm' });
    // Three a minute is one every 20 s (less whatever time passed since the burst).
    expect(refused.ok === false && refused.limit === 'rpm' && refused.retryAfterMs).toBeGreaterThan(19_000);
    expect(refused.ok === false && refused.limit === 'rpm' && refused.retryAfterMs).toBeLessThanOrEqual(20_000);
    expect((await gate.admit(request({ keyId: 'key_b', rpm: 3 }))).ok).toBe(true);
  });

  it.runIf(available)('corrects the token estimate when the request settles', async () => {
    const under = await open(async () => 0);
    const ticket = ticketOf(await under.gate.admit(request({ tpm: 1_000, estimatedTokens: 100 })));
    ticket.settle({ tokens: 700, costMicros: 0 }, Date.now());
    await under.settled();
    // 1,000 less the 700 really used leaves 300 (and a little refill): 400 does not fit, 250 does.
    expect(await under.gate.admit(request({ tpm: 1_000, estimatedTokens: 400 }))).toMatchObject({ ok: false, limit: 'tpm' });
    expect((await under.gate.admit(request({ tpm: 1_000, estimatedTokens: 250 }))).ok).toBe(true);
  });

  it.runIf(available)('reserves the maximum cost, refuses what could pass the budget, and counts the real cost once settled', async () => {
    const under = await open(async () => 10_000);
    const ticket = ticketOf(await under.gate.admit(request(budgeted(60_000))));
    expect(await under.gate.reservedMicros('key_a')).toBe(60_000);
    // Spent 10,000 (the ledger) + 60,000 held: 30,000 are left.
    expect(await under.gate.admit(request(budgeted(40_000)))).toEqual({ ok: false, limit: 'budget', availableMicros: 30_000 });
    ticket.settle({ tokens: 0, costMicros: 50_000 }, Date.now());
    ticket.settle({ tokens: 0, costMicros: 50_000 }, Date.now());
    await under.settled();
    expect(await under.gate.reservedMicros('key_a')).toBe(0);
    expect(await under.gate.admit(request(budgeted(40_001)))).toEqual({ ok: false, limit: 'budget', availableMicros: 40_000 });
    expect((await under.gate.admit(request(budgeted(40_000)))).ok).toBe(true);
    expect(under.ledgerReads).toBe(1);
  });

  it.runIf(available)('a request that may be lowered reserves what is left when its maximum does not fit, down to its minimum', async () => {
    const under = await open(async () => 10_000);
    const lowerable = (maxCostMicros: number, minCostMicros: number): Partial<GateRequest> => ({
      budget: { budgetMicros: 100_000, periodStartMs: PERIOD_START_MS, maxCostMicros, minCostMicros },
    });
    // Its maximum fits: all of it is reserved.
    expect(await under.gate.admit(request(lowerable(30_000, 1_000)))).toMatchObject({ ok: true, reservedMicros: 30_000 });
    // 10,000 spent + 30,000 held leave 60,000: that is reserved, not the 900,000 asked for.
    const lowered = await under.gate.admit(request(lowerable(900_000, 1_000)));
    expect(lowered).toMatchObject({ ok: true, reservedMicros: 60_000 });
    expect(await under.gate.reservedMicros('key_a')).toBe(90_000);
    expect(await under.gate.admit(request(lowerable(900_000, 1)))).toEqual({ ok: false, limit: 'budget', availableMicros: 0 });
    ticketOf(lowered).settle({ tokens: 0, costMicros: 59_000 }, Date.now());
    await under.settled();
    // 1,000 left: a minimum of 1,001 does not fit, one of 1,000 does.
    expect(await under.gate.admit(request(lowerable(900_000, 1_001)))).toEqual({ ok: false, limit: 'budget', availableMicros: 1_000 });
    expect(await under.gate.admit(request(lowerable(900_000, 1_000)))).toMatchObject({ ok: true, reservedMicros: 1_000 });
  });

  it.runIf(available)('a request its budget refuses still counts against rpm, but is charged no tokens', async () => {
    const { gate } = await open(async () => 0);
    const limits = { rpm: 2, tpm: 100, estimatedTokens: 100 };
    expect(await gate.admit(request({ ...limits, ...budgeted(20, 10) }))).toEqual({ ok: false, limit: 'budget', availableMicros: 10 });
    // All 100 tokens were still there for this one.
    expect((await gate.admit(request(limits))).ok).toBe(true);
    expect(await gate.admit(request({ ...limits, estimatedTokens: 1 }))).toMatchObject({ ok: false, limit: 'rpm' });
  });

  it.runIf(available)('a new budget period starts from the ledger sum for it', async () => {
    const under = await open(async (_keyId, sinceMs) => (sinceMs === PERIOD_START_MS ? 90_000 : 0));
    expect(await under.gate.admit(request(budgeted(20_000)))).toEqual({ ok: false, limit: 'budget', availableMicros: 10_000 });
    const nextPeriod = { budget: { budgetMicros: 100_000, periodStartMs: PERIOD_START_MS + 86_400_000, maxCostMicros: 20_000 } };
    expect((await under.gate.admit(request(nextPeriod))).ok).toBe(true);
    expect(under.ledgerReads).toBe(2);
  });
});

const TEAM = 'team_t';
type TeamLimits = NonNullable<GateRequest['team']>;
/** A request of `keyId` in team `team_t`: the key's limits, then the team's. */
const ofTeam = (keyId: string, key: Partial<GateRequest>, team: Partial<TeamLimits>): GateRequest =>
  request({ keyId, ...key, team: { teamId: TEAM, rpm: null, tpm: null, ...team } });
const teamBudget = (maxCostMicros: number, budgetMicros: number, minCostMicros?: number): { budget: GateBudget } => ({
  budget: { budgetMicros, periodStartMs: PERIOD_START_MS, maxCostMicros, ...(minCostMicros === undefined ? {} : { minCostMicros }) },
});

describe.each(implementations)('the %s admission gate, for a key of a team', (_name, available, open) => {
  it.runIf(available)("a team's budget holds across its keys; a request it refuses reserves nothing of the key's budget", async () => {
    const under = await open(async () => 0);
    const { gate } = under;
    // Each key's own budget (100,000) is larger than the team's (50,000).
    const asked = (keyId: string) => ofTeam(keyId, teamBudget(40_000, 100_000), teamBudget(40_000, 50_000));
    const first = ticketOf(await gate.admit(asked('key_a')));
    expect(await gate.admit(asked('key_a'))).toEqual({ ok: false, limit: 'budget', availableMicros: 10_000, refusedBy: 'team' });
    expect(await gate.admit(asked('key_b'))).toEqual({ ok: false, limit: 'budget', availableMicros: 10_000, refusedBy: 'team' });
    expect(await gate.reservedMicros('key_a', TEAM)).toBe(40_000);
    expect(await gate.reservedMicros('key_b', TEAM)).toBe(0);
    expect(await gate.reservedMicros(TEAM)).toBe(40_000);
    first.settle({ tokens: 0, costMicros: 5_000 }, Date.now());
    await under.settled();
    // 45,000 left of the team's: another key of it fits now.
    expect(await gate.admit(asked('key_b'))).toMatchObject({ ok: true, reservedMicros: 40_000 });
    expect(await gate.reservedMicros(TEAM)).toBe(40_000);
  });

  it.runIf(available)("a request its key's budget refuses reserves nothing of the team's, and says it was the key's", async () => {
    const { gate } = await open(async () => 0);
    expect(await gate.admit(ofTeam('key_a', teamBudget(40_000, 30_000), teamBudget(40_000, 1_000_000)))).toEqual({
      ok: false,
      limit: 'budget',
      availableMicros: 30_000,
    });
    expect(await gate.reservedMicros(TEAM)).toBe(0);
  });

  it.runIf(available)('a request that may be lowered reserves what the smaller of the two budgets has left, in both', async () => {
    // The team has spent 10,000 of its 50,000 (the ledger, by the team's id); the key nothing of its 100,000.
    const under = await open(async (id) => (id === TEAM ? 10_000 : 0));
    const admission = await under.gate.admit(ofTeam('key_a', teamBudget(900_000, 100_000, 1_000), teamBudget(900_000, 50_000, 1_000)));
    expect(admission).toMatchObject({ ok: true, reservedMicros: 40_000 });
    expect(await under.gate.reservedMicros('key_a', TEAM)).toBe(40_000);
    expect(await under.gate.reservedMicros(TEAM)).toBe(40_000);
    // The key's spend and the team's were each read from the ledger once.
    expect(under.ledgerReads).toBe(2);
    ticketOf(admission).settle({ tokens: 0, costMicros: 40_000 }, Date.now());
    await under.settled();
    expect(await under.gate.admit(ofTeam('key_b', {}, teamBudget(1, 50_000)))).toEqual({ ok: false, limit: 'budget', availableMicros: 0, refusedBy: 'team' });
    expect(under.ledgerReads).toBe(2);
  });

  it.runIf(available)("a team's rpm counts every key's requests, and the refusal says it was the team's", async () => {
    const { gate } = await open(async () => 0);
    const admitted: boolean[] = [];
    for (const keyId of ['key_a', 'key_b', 'key_c', 'key_a']) admitted.push((await gate.admit(ofTeam(keyId, { rpm: 5 }, { rpm: 3 }))).ok);
    expect(admitted).toEqual([true, true, true, false]);
    expect(await gate.admit(ofTeam('key_d', {}, { rpm: 3 }))).toMatchObject({ ok: false, limit: 'rpm', refusedBy: 'team' });
  });

  it.runIf(available)('a request refused by the team takes nothing from the key', async () => {
    const { gate } = await open(async () => 0);
    // 60 tokens each: the team's 100 a minute take one.
    expect((await gate.admit(ofTeam('key_a', { tpm: 1_000, estimatedTokens: 60 }, { tpm: 100 }))).ok).toBe(true);
    expect(await gate.admit(ofTeam('key_a', { tpm: 1_000, estimatedTokens: 60 }, { tpm: 100 }))).toMatchObject({ ok: false, limit: 'tpm', refusedBy: 'team' });
    // With the team's limit lifted, the key still has its 940: 900 fit (they would not, had the refused request taken 60).
    expect((await gate.admit(ofTeam('key_a', { tpm: 1_000, estimatedTokens: 900 }, {}))).ok).toBe(true);
    expect(await gate.admit(ofTeam('key_a', { tpm: 1_000, estimatedTokens: 100 }, {}))).toMatchObject({ ok: false, limit: 'tpm' });
    expect(await gate.admit(ofTeam('key_a', { tpm: 1_000, estimatedTokens: 100 }, {}))).not.toHaveProperty('refusedBy');
  });

  it.runIf(available)('a request refused by the key takes nothing from the team', async () => {
    const { gate } = await open(async () => 0);
    // The key's 100 a minute take one of 60; the team's 1,000 are left whole by the one it refuses.
    expect((await gate.admit(ofTeam('key_b', { tpm: 100, estimatedTokens: 60 }, { tpm: 1_000 }))).ok).toBe(true);
    expect(await gate.admit(ofTeam('key_b', { tpm: 100, estimatedTokens: 60 }, { tpm: 1_000 }))).toEqual(expect.objectContaining({ ok: false, limit: 'tpm' }));
    expect((await gate.admit(ofTeam('key_c', { estimatedTokens: 900 }, { tpm: 1_000 }))).ok).toBe(true);
  });

  it.runIf(available)("a request refused by the team's budget still counts against the team's rpm", async () => {
    const { gate } = await open(async () => 0);
    const team = { rpm: 2, ...teamBudget(20, 10) };
    expect(await gate.admit(ofTeam('key_a', {}, team))).toMatchObject({ ok: false, limit: 'budget', refusedBy: 'team' });
    // A request of unknown price (maximum cost 0) fits what is left of the budget, but not the minute.
    expect((await gate.admit(ofTeam('key_b', {}, { ...team, ...teamBudget(0, 10) }))).ok).toBe(true);
    expect(await gate.admit(ofTeam('key_c', {}, { ...team, ...teamBudget(0, 10) }))).toMatchObject({ ok: false, limit: 'rpm', refusedBy: 'team' });
  });
});
