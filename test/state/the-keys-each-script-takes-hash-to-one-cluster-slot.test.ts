import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { GateAdmission, GateRequest } from '../../src/admission/admission-gate.js';
import { RedisAdmissionGate } from '../../src/state/redis-admission-gate.js';
import type { RedisLink } from '../../src/state/redis-link.js';
import { taggedKey } from '../../src/state/tagged-key.js';
import { clusterSlotOf } from '../support/cluster-slot.js';

/** Ids a caller or an operator could make: plain, empty, braces anywhere. */
const IDS = ['key_0123456789abcdef', 'openai/gpt-4o', '', '}', '}x', '{', '{}', 'a{b}c', 'x}y{z', '{{}}', 'ünïcødé/模型'];
const PREFIX = { key: (name: string) => `switchyard:${name}` };
const TEAM_KEY_ID = 'key_0123456789abcdef';

it('computes slots as Redis does (the examples of the cluster specification and what a test cluster answered)', () => {
  expect(clusterSlotOf('foo')).toBe(12182);
  expect(clusterSlotOf('{user1000}.following')).toBe(clusterSlotOf('{user1000}.followers'));
  expect(clusterSlotOf('{user1000}.following')).toBe(3443);
  // An empty tag does not count: the whole key is hashed.
  expect(clusterSlotOf('{}a')).not.toBe(clusterSlotOf('{}b'));
});

it('every key of one virtual key or one deployment, whatever its id, hashes to one slot', () => {
  for (const family of ['gate', 'health'] as const) {
    for (const id of IDS) {
      const parts = family === 'gate' ? ['rate', 'budget', 'open', 'holds', 'merged:replica:1'] : ['breaker', 'trial', 'structural', 'cooling', 'quota', 'probe', 'recovery-probe'];
      const slots = new Set(parts.map((part) => clusterSlotOf(taggedKey(PREFIX, family, id, part))));
      expect({ family, id, slots: slots.size }).toEqual({ family, id, slots: 1 });
    }
  }
  // The tags do spread keys: ids are not all in one slot.
  expect(new Set(IDS.map((id) => clusterSlotOf(taggedKey(PREFIX, 'gate', id, 'rate')))).size).toBeGreaterThan(IDS.length / 2);
});

it('the admission gate sends each of its scripts keys of one slot: admission, settlement, reservations and the merges after an outage, for keys with a team and without', async () => {
  const link = recordingLink();
  const gate = new RedisAdmissionGate(link.link, { ledgerSpentMicros: async () => 0 });
  const limits = { rpm: 10_000, tpm: 1_000_000, budget: { budgetMicros: 1_000_000, periodStartMs: Date.parse('2026-12-01T00:00:00Z'), maxCostMicros: 30_000 } };
  // A key alone, and a key of a team (any id) with limits of its own.
  const requests = IDS.flatMap((id): GateRequest[] => [
    { keyId: id, estimatedTokens: 10, nowMs: Date.now(), ...limits },
    { keyId: TEAM_KEY_ID, estimatedTokens: 10, nowMs: Date.now(), ...limits, team: { teamId: id, ...limits } },
  ]);
  const settle = (admission: GateAdmission) => {
    if (!admission.ok) throw new Error(`refused by ${admission.limit}`);
    admission.ticket.settle({ tokens: 12, costMicros: 30_000 }, Date.now());
  };
  for (const request of requests) {
    settle(await gate.admit(request));
    await gate.reservedMicros(request.keyId, request.team?.teamId);
    if (request.team) await gate.reservedMicros(request.team.teamId);
  }
  await gate.flush();
  // An outage: admitted locally, then merged once the link is up again.
  link.setUp(false);
  for (const request of requests) settle(await gate.admit(request));
  link.setUp(true);
  await gate.flush();

  const scripts = new Set(link.calls.map((call) => call.script));
  expect([...scripts].sort()).toEqual(['gate_admit', 'gate_admit_team', 'gate_merge', 'gate_rate_merge', 'gate_reserved', 'gate_settle']);
  expect(link.calls.filter((call) => new Set(call.keys.map(clusterSlotOf)).size !== 1)).toEqual([]);
  // The outage's spend went to the team's counters and to its key's, under the team's tag.
  const merged = new Set(link.calls.filter((call) => call.script === 'gate_merge').map((call) => call.keys[0]));
  for (const id of IDS) {
    expect(merged).toContain(taggedKey(PREFIX, 'gate', id, 'budget'));
    if (id !== TEAM_KEY_ID) expect(merged).toContain(taggedKey(PREFIX, 'gate', id, `${TEAM_KEY_ID}:budget`));
  }
});

it('the scripts checked here and by the cluster test are every script that takes more than one key', () => {
  const directory = join(import.meta.dirname, '../../src/state');
  const multiKey = new Set<string>();
  for (const file of readdirSync(directory).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))) {
    const source = readFileSync(join(directory, file), 'utf8');
    for (const [, name, keys] of source.matchAll(/redisScript\(link, '(\w+)', (\d+)/g)) if (Number(keys) > 1) multiKey.add(name!);
    for (const [, name, keys] of source.matchAll(/(\w+): \{ numberOfKeys: (\d+)/g)) if (Number(keys) > 1) multiKey.add(name!);
  }
  // The gate's above; a deployment's breaker and trial lease (health family) in the test before, and both on a real cluster.
  expect([...multiKey].sort()).toEqual(['breakerTransition', 'claimTrial', 'gate_admit', 'gate_admit_team', 'gate_merge', 'gate_rate_merge', 'gate_reserved', 'gate_settle']);
});

interface RecordedCall {
  script: string;
  keys: string[];
}

/**
 * A link whose scripts answer as Redis would for a gate with room to spare and record their
 * keys; `setUp(false)` plays an outage (the gate admits locally), `setUp(true)` its end.
 */
function recordingLink(): { link: RedisLink; calls: RecordedCall[]; setUp(up: boolean): void } {
  const calls: RecordedCall[] = [];
  // Admitted, with the figures of each subject (four keys each).
  const admitted = (keys: number) => ['ok', '30000', String(Date.now()), '0', ...Array.from({ length: keys / 4 }, () => ['599940000', '59999400000', '0', '30000']).flat()];
  const replies: Record<string, (keys: number) => unknown> = {
    gate_admit: admitted,
    gate_admit_team: admitted,
    gate_settle: () => 1,
    gate_merge: () => 1,
    gate_rate_merge: () => 1,
    gate_reserved: () => '0',
  };
  const commands: Record<string, unknown> = {
    defineCommand(name: string, definition: { numberOfKeys: number }) {
      const script = name.replace(/^switchyard_/, '');
      commands[name] = async (...args: unknown[]) => {
        calls.push({ script, keys: args.slice(0, definition.numberOfKeys).map(String) });
        return replies[script]!(definition.numberOfKeys);
      };
    },
  };
  const state = { up: true };
  const link = {
    keyPrefix: 'switchyard:',
    replicaId: 'replica',
    commands,
    key: (name: string) => `switchyard:${name}`,
    get up() {
      return state.up;
    },
    onResync: () => undefined,
  } as unknown as RedisLink;
  return {
    link,
    calls,
    setUp(up) {
      state.up = up;
    },
  };
}
