import { describe, expect, it } from 'vitest';
import type { GateAdmission, GateRequest } from '../../src/admission/admission-gate.js';
import type { DrillRun } from '../../src/drills/drill-run.js';
import { bodyHash } from '../../src/idempotency/idempotency-store.js';
import type { KeyCache } from '../../src/keys/key-cache.js';
import { LocalSessionBindings } from '../../src/routing/session-bindings.js';
import { RedisAdmissionGate } from '../../src/state/redis-admission-gate.js';
import { RedisIdempotencyStore } from '../../src/state/redis-idempotency-store.js';
import { RedisLatestDrillRun } from '../../src/state/redis-latest-drill-run.js';
import type { RedisLink } from '../../src/state/redis-link.js';
import { RedisKeyChanges } from '../../src/state/redis-key-changes.js';
import { RedisRunLeases } from '../../src/state/redis-run-leases.js';
import { RedisSessionBindings } from '../../src/state/redis-session-bindings.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { clusterSlotOf } from '../support/cluster-slot.js';
import { attemptOn, attemptRecord, healthConfig, startReplica, within, type HealthReplica } from '../support/health-replicas.js';
import { redisClusterForThisFile } from '../support/redis-cluster.js';
import { definedScripts, recordScriptCalls, type ScriptCall } from '../support/script-calls.js';
import { replicaLinks } from './two-replicas.js';

const cluster = redisClusterForThisFile();
const links = replicaLinks();
/** How long a change may take to reach the other replica: well under a second alone, far longer on a loaded CI machine. */
const SETTLES_MS = 15_000;
let prefixes = 0;

/** One id per primary: `make(n)` for the first n whose hash tag lands on a primary not yet covered. */
async function idsOnEveryPrimary(make: (n: number) => string): Promise<string[]> {
  const byPrimary = new Map<number, string>();
  for (let n = 0; byPrimary.size < cluster.cluster().primaries.length && n < 1_000; n++) {
    const id = make(n);
    const port = await cluster.cluster().primaryPortOf(await cluster.cluster().slotOf(`{${id}}`));
    if (!byPrimary.has(port)) byPrimary.set(port, id);
  }
  expect(byPrimary.size).toBe(cluster.cluster().primaries.length);
  return [...byPrimary.values()];
}

/**
 * What every test here ends with: each call's keys hash to one slot, none was refused for keys
 * across slots (an outage's CLUSTERDOWN or timeout aside), and every script defined on the links
 * was answered at least once — so no script went untried.
 */
function expectEveryScriptRanInOneSlot(onLinks: RedisLink[], calls: ScriptCall[]): void {
  expect(calls.filter((call) => new Set(call.keys.map(clusterSlotOf)).size > 1)).toEqual([]);
  expect(calls.filter((call) => call.error !== undefined && !/^CLUSTERDOWN|timed out|Connection is closed/.test(call.error))).toEqual([]);
  const answered = new Set(calls.filter((call) => call.answered).map((call) => call.script));
  const defined = new Set(onLinks.flatMap(definedScripts));
  expect(defined.size).toBeGreaterThan(0);
  expect([...defined].filter((script) => !answered.has(script))).toEqual([]);
}

/** Freezes the first primary until both links are down, runs `meanwhile`, thaws it and waits for both to be shared again. */
async function outageOfOnePrimary(onLinks: RedisLink[], meanwhile: () => Promise<void>): Promise<void> {
  const primary = cluster.cluster().primaries[0]!;
  primary.freeze();
  try {
    await eventually(() => onLinks.every((link) => !link.up), 5_000, 'every link down with a primary hung');
    await meanwhile();
  } finally {
    primary.thaw();
  }
  await eventually(() => onLinks.every((link) => link.up), 30_000, 'every link shared again once the primary answers');
}

describe.runIf(cluster.available)('every shared store on a Redis Cluster (3 primaries)', () => {
  it('the slot this test computes for a key is the one the cluster gives it', async () => {
    for (const key of ['foo', 'switchyard:gate:{key_1}:rate', 'p:health:{east/a}:breaker', 'a{b}c{d}', '{}x', 'x{', '{_}y}:z']) {
      expect(clusterSlotOf(key)).toBe(await cluster.cluster().slotOf(key));
    }
  });

  it('the admission gate: rpm and budgets shared by two links for keys and teams on every primary, and an outage’s spend and requests merged once', async () => {
    const a = await links.open({ nodes: cluster.cluster().nodes });
    const b = await links.open({ nodes: cluster.cluster().nodes });
    const calls = [...[a, b].map(recordScriptCalls)];
    const ledgerSpentMicros = async () => 0;
    const gateA = new RedisAdmissionGate(a, { ledgerSpentMicros });
    const gateB = new RedisAdmissionGate(b, { ledgerSpentMicros });
    const periodStartMs = Date.parse('2026-12-01T00:00:00Z');
    // Each request reserves and costs 30,000; the budget holds three.
    const budget = { budgetMicros: 100_000, periodStartMs, maxCostMicros: 30_000 };
    const budgetOnly = (keyId: string): GateRequest => ({ keyId, rpm: null, tpm: null, estimatedTokens: 10, nowMs: Date.now(), budget });
    const rpm3 = (keyId: string): GateRequest => ({ keyId: `${keyId}-rpm`, rpm: 3, tpm: 1_000, estimatedTokens: 10, nowMs: Date.now() });
    // A key of a team (its counters under the team's tag, beside the team's): the team's limits, the key's larger.
    const teamBudgetOnly = (teamId: string): GateRequest => ({ ...budgetOnly(`key_of_${teamId}`), budget: { ...budget, budgetMicros: 1_000_000 }, team: { teamId, rpm: null, tpm: null, budget } });
    const teamRpm3 = (teamId: string): GateRequest => ({ ...rpm3(`key_of_${teamId}`), rpm: 10, team: { teamId: `${teamId}-rpm`, rpm: 3, tpm: null } });
    const settle = (admission: GateAdmission) => {
      if (!admission.ok) throw new Error(`refused by ${admission.limit}`);
      admission.ticket.settle({ tokens: 12, costMicros: 30_000 }, Date.now());
    };
    const keyIds = await idsOnEveryPrimary((n) => `key_${n}`);
    const teamIds = await idsOnEveryPrimary((n) => `team_${n}`);
    const admitEach = async (gate: RedisAdmissionGate) => {
      for (const keyId of keyIds) {
        settle(await gate.admit(budgetOnly(keyId)));
        settle(await gate.admit(rpm3(keyId)));
      }
      for (const teamId of teamIds) {
        settle(await gate.admit(teamBudgetOnly(teamId)));
        settle(await gate.admit(teamRpm3(teamId)));
      }
    };

    await admitEach(gateA);
    await gateA.flush();
    for (const keyId of keyIds) expect(await gateB.reservedMicros(keyId)).toBe(0);
    for (const teamId of teamIds) expect(await gateB.reservedMicros(teamId)).toBe(0);

    // Admitted on A's local gate: their spend and their places in the minute wait for Redis.
    await outageOfOnePrimary([a, b], () => admitEach(gateA));
    await gateA.flush();

    for (const keyId of keyIds) {
      // 60,000 spent fleet-wide (30,000 before, 30,000 merged once): one more fits, then 10,000 is left.
      settle(await gateB.admit(budgetOnly(keyId)));
      expect(await gateB.admit(budgetOnly(keyId))).toEqual({ ok: false, limit: 'budget', availableMicros: 10_000 });
      // Two of the minute's three taken (one before, one merged): one more, then refused.
      settle(await gateB.admit(rpm3(keyId)));
      expect(await gateB.admit(rpm3(keyId))).toMatchObject({ ok: false, limit: 'rpm' });
    }
    for (const teamId of teamIds) {
      settle(await gateB.admit(teamBudgetOnly(teamId)));
      expect(await gateB.admit(teamBudgetOnly(teamId))).toEqual({ ok: false, limit: 'budget', availableMicros: 10_000, refusedBy: 'team' });
      settle(await gateB.admit(teamRpm3(teamId)));
      expect(await gateB.admit(teamRpm3(teamId))).toMatchObject({ ok: false, limit: 'rpm', refusedBy: 'team' });
    }
    await gateB.flush();
    expectEveryScriptRanInOneSlot([a, b], calls.flat());
  }, 90_000);

  it('health: an ejection, its trial, structural faults, cooling, probes, the retry budget, fallback share and quota, across two replicas, and a change made during an outage', async () => {
    // Deployments whose tags land on every primary: one connection per primary.
    const connections = await idsOnEveryPrimary((n) => `conn${n}/m`);
    const names = connections.map((deployment) => deployment.split('/')[0]!);
    const config = healthConfig({
      health: { probe_interval_s: 0.3, persist_429_s: 900 },
      connections: Object.fromEntries(names.map((name) => [name, { provider: 'mock' }])),
      routes: { chat: { health: { consecutive_failures: 2, eject_base_s: 0.3, eject_max_s: 8 }, targets: names.map((name) => ({ connection: name, model: 'm' })) } },
    });
    const target = { nodes: cluster.cluster().nodes, keyPrefix: `health-${process.pid}-${++prefixes}:` };
    const replicas: HealthReplica[] = [await startReplica(config, target), await startReplica(config, target)];
    try {
      const [a, b] = replicas as [HealthReplica, HealthReplica];
      const calls = replicas.map((replica) => recordScriptCalls(replica.link!));
      for (const replica of replicas) for (let index = 0; index < names.length; index++) await attemptOn(replica, replica.target('chat', index), 'ok');
      const breaker = (replica: HealthReplica, deployment: string) => replica.registry.find(deployment)?.breaker.state;

      for (const [index, deployment] of connections.entries()) {
        await attemptOn(a, a.target('chat', index), 'server_error');
        await attemptOn(a, a.target('chat', index), 'server_error');
        await within(SETTLES_MS, () => breaker(b, deployment) === 'ejected');
        await within(SETTLES_MS, () => a.registry.find(deployment)!.breaker.trialDue);
        // A neutral trial frees its claim; B's successful one readmits it on A.
        expect((await attemptOn(a, a.target('chat', index), 'cancelled')).out).toBe(false);
        await within(SETTLES_MS, async () => !(await attemptOn(b, b.target('chat', index), 'ok')).out);
        await within(SETTLES_MS, () => breaker(a, deployment) === 'closed');
      }
      // One deployment cooled, one out for a structural fault (probed), one for quota headers and the outage.
      await attemptOn(a, a.target('chat', 0), 'rate_limit', { httpStatus: 429, retryAfterMs: 5_000 });
      await within(SETTLES_MS, () => b.cooling.coolingUntil(connections[0]!) !== undefined);
      await attemptOn(b, b.target('chat', 1), 'not_found');
      await within(SETTLES_MS, () => a.registry.find(connections[1]!)?.structural.state === 'structural');
      await within(SETTLES_MS, async () => {
        await Promise.all([a.monitor.tick(), b.monitor.tick()]);
        return a.probes.length + b.probes.length > 0;
      });

      const budget = config.routes.chat!.retry_budget;
      expect(await a.budgets.for('chat', budget).tryRetry()).toBe(true);
      b.budgets.for('chat', budget).recordSuccess();
      await b.fleetRetryBuckets!.flush();
      for (let answer = 0; answer < 10; answer++) {
        a.fallbackShare.record('chat', true, Date.now());
        b.fallbackShare.record('chat', false, Date.now());
      }
      await a.fleetFallbackShare!.flush();
      await b.fleetFallbackShare!.flush();
      expect(b.fallbackShare.share('chat', Date.now())).toBe(0.5);
      const last = connections.length - 1;
      const permit = await a.door.admit(a.target('chat', last), a.route());
      if (permit.out) throw new Error('expected a permit');
      permit.observeHeaders({ 'x-ratelimit-limit-requests': '100', 'x-ratelimit-remaining-requests': '42' });
      permit.settle(attemptRecord('ok', a.target('chat', last)));
      await within(SETTLES_MS, () => b.registry.find(connections[last]!)?.quota?.requests?.remaining === 42);

      // Ejected on A alone while Redis is out: pushed to the fleet once it is back.
      await outageOfOnePrimary([a.link!, b.link!], async () => {
        await attemptOn(a, a.target('chat', last), 'server_error');
        await attemptOn(a, a.target('chat', last), 'server_error');
        expect(breaker(a, connections[last]!)).toBe('ejected');
      });
      await within(SETTLES_MS, () => breaker(b, connections[last]!) === 'ejected');
      expectEveryScriptRanInOneSlot([a.link!, b.link!], calls.flat());
    } finally {
      await Promise.all(replicas.map((replica) => replica.close()));
    }
  }, 90_000);

  it('idempotency keys, run leases, session bindings, the latest drill run and revocations, shared by two links', async () => {
    const a = await links.open({ nodes: cluster.cluster().nodes });
    const b = await links.open({ nodes: cluster.cluster().nodes });
    const calls = [...[a, b].map(recordScriptCalls)];
    const [idempotencyA, idempotencyB] = [new RedisIdempotencyStore(a), new RedisIdempotencyStore(b)];
    const [leasesA, leasesB] = [new RedisRunLeases(a), new RedisRunLeases(b)];
    const [bindingsA, bindingsB] = [new RedisSessionBindings(a, new LocalSessionBindings()), new RedisSessionBindings(b, new LocalSessionBindings())];
    const names = await idsOnEveryPrimary((n) => `name-${n}`);

    for (const name of names) {
      const request = { key: name, scope: 'key_a /v1/chat/completions', bodyHash: bodyHash('{}'), nowMs: Date.now() };
      const begun = await idempotencyA.begin(request);
      if (begun.state !== 'new') throw new Error(`expected a new run, got ${begun.state}`);
      expect(await idempotencyB.begin(request)).toMatchObject({ state: 'running' });
      idempotencyA.abandon(begun.entry);
      await idempotencyA.flush();
      const again = await idempotencyB.begin(request);
      if (again.state !== 'new') throw new Error(`expected the abandoned key free, got ${again.state}`);
      idempotencyB.complete(again.entry, { status: 200, headers: {}, body: name });
      await idempotencyB.flush();
      expect(await idempotencyA.begin(request)).toEqual({ state: 'done', stored: { status: 200, headers: {}, body: name } });

      expect(await leasesA.claim(name, 10_000)).toBe(true);
      expect(await leasesB.claim(name, 10_000)).toBe(false);
      await leasesA.renew(name, 10_000);
      expect(await leasesA.hold(name, 'run-a', 10_000)).toBeUndefined();
      expect(await leasesB.hold(name, 'run-b', 10_000)).toBe('run-a');
      await leasesA.release(name, 'run-a');
      expect(await leasesB.hold(name, 'run-b', 10_000)).toBeUndefined();

      bindingsA.bind(name, 'east/a', 60_000);
      await eventually(async () => (await bindingsB.renew(name, 60_000)) === 'east/a', 2_000, `the binding of ${name} seen by B`);
    }

    const drillRun = { id: 'drill-1', status: 'running' } as unknown as DrillRun;
    await new RedisLatestDrillRun(a).save(drillRun);
    expect(await new RedisLatestDrillRun(b).load()).toEqual(drillRun);

    // Pub/sub: whichever node each link listens on, a revocation published by A reaches B.
    const heard: string[] = [];
    new RedisKeyChanges(b, { forget: (id: string) => heard.push(id), refresh: async () => undefined } as unknown as KeyCache);
    const revocations = new RedisKeyChanges(a, { forget: () => undefined, refresh: async () => undefined } as unknown as KeyCache);
    await eventually(
      () => {
        revocations.forget('key_gone');
        return heard.includes('key_gone');
      },
      3_000,
      'the revocation heard by B',
    );
    expectEveryScriptRanInOneSlot([a, b], calls.flat());
  }, 60_000);
});
