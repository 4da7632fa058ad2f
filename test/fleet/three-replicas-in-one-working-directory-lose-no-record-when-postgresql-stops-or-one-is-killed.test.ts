import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { queryPostgres } from '../scenario/postgres-helpers.js';
import { eventually } from '../scenario/scenario-helpers.js';
import type { Replica } from '../support/gateway-fleet.js';
import { asked, chat, createFleetKey, fleetForThisFile, keepAsking, mockConnectionYaml, type Asked } from './fleet-helpers.js';

/**
 * Three replicas started in one working directory with nothing set but the connections: the
 * default `store.spill_dir` (`.`) is the same directory for all three, as for anyone who starts
 * several gateways from one checkout or mounts one volume into every pod.
 */
const fleet = fleetForThisFile({
  replicas: 3,
  sharedDirectory: true,
  yaml: (mockUrl) => `${mockConnectionYaml(mockUrl)}
routes:
  r:
    targets: [{ connection: mock, model: gpt-paid, price: { input_per_mtok: 1000, output_per_mtok: 1000 } }]`,
});

/**
 * How long PostgreSQL stays away while traffic flows: the writers retry, backed off, at about
 * 0.5, 1.5 and 3.5 s, each retry claiming what its spill files hold.
 */
const OUTAGE_MS = 5_000;

/** Bounds sized for a busy 2-core machine; the 5 s figure is the fault soak's to measure (bench/README.md). */
const REPLAY_BOUND_MS = 30_000;

interface Counts {
  records: number;
  spend: number;
}

/** Each request's records and spend rows in PostgreSQL, and the key's totals. */
async function storedCounts(key: { name: string }, ids: readonly string[]): Promise<{ each: ({ id: string } & Counts)[]; total: Counts }> {
  const url = fleet.databaseUrl();
  const each = await queryPostgres<{ id: string } & Counts>(
    url,
    `SELECT id, (SELECT count(*) FROM requests r WHERE r.id = ids.id)::int AS records, (SELECT count(*) FROM spend s WHERE s.request_id = ids.id)::int AS spend
     FROM unnest($1::text[]) AS ids(id) ORDER BY id`,
    [ids],
  );
  const [total] = await queryPostgres<Counts>(
    url,
    'SELECT (SELECT count(*) FROM requests WHERE key_name = $1)::int AS records, (SELECT count(*) FROM spend WHERE key_name = $1)::int AS spend',
    [key.name],
  );
  return { each, total: total! };
}

/** Waits until every answered request has one record and one spend row, then holds the key's totals to the answers. */
async function expectEachAnswerStoredOnce(key: { name: string }, answers: readonly Asked[]): Promise<void> {
  expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
  const ids = answers.map((answer) => answer.id).sort();
  let counts: Awaited<ReturnType<typeof storedCounts>> | undefined;
  const settled = () => counts !== undefined && counts.each.every((count) => count.records === 1 && count.spend === 1) && counts.total.records === ids.length;
  await eventually(
    async () => {
      counts = await storedCounts(key, ids).catch(() => undefined);
      return settled();
    },
    REPLAY_BOUND_MS,
    'every answered request stored once, with its spend row',
  ).catch(() => undefined);
  // A summary first: hundreds of ids would hide what went wrong.
  const missing = (field: keyof Counts) => counts!.each.filter((count) => count[field] !== 1).length;
  expect({ answered: ids.length, withoutOneRecord: missing('records'), withoutOneSpendRow: missing('spend') }).toEqual({ answered: ids.length, withoutOneRecord: 0, withoutOneSpendRow: 0 });
  expect(counts!.each).toEqual(ids.map((id) => ({ id, records: 1, spend: 1 })));
  expect(counts!.total).toEqual({ records: ids.length, spend: ids.length });
}

it.skipIf(!fleet.available)(
  'PostgreSQL stopped (fast) mid-traffic on three replicas spilling into one directory, then started: each answered request has exactly one record and one spend row',
  async () => {
    const { replicas } = fleet.fleet();
    const key = { name: 'fast-stop', ...(await createFleetKey(replicas[0]!.url, { name: 'fast-stop' })) };
    const single: Asked[] = [];
    for (const replica of replicas) single.push(asked(await chat(replica.url, key.key)));

    const traffic = replicas.map((replica) => keepAsking(replica.url, key.key));
    await sleep(300);
    await fleet.postgres().stop('fast');
    // Long enough for each replica's writer to retry (and claim its spill) several times.
    await sleep(OUTAGE_MS);
    await fleet.postgres().start();
    for (const replica of replicas) single.push(asked(await chat(replica.url, key.key)));
    const answers = [...single, ...(await Promise.all(traffic.map((loop) => loop.stop()))).flat()];
    await expectEachAnswerStoredOnce(key, answers);
  },
  120_000,
);

/** What `/readyz` of a replica says waits in its spill files. */
async function spillOf(replica: Replica): Promise<Counts> {
  const response = await fetch(`${replica.url}/readyz`, { signal: AbortSignal.timeout(5_000) });
  return ((await response.json()) as { spill: Counts }).spill;
}

/** The instance id a replica names its spill files with, from its start log. */
function spillIdOf(replica: Replica): string {
  return /"spill_id":"([^"]+)"/.exec(replica.process.output())![1]!;
}

/** Every adoption the running replicas logged of `owner`'s spill files: who adopted, and how many items. */
function adoptionsOf(owner: string): { by: string; records: number; spend: number }[] {
  return fleet.fleet().replicas.flatMap((replica) =>
    replica.process
      .output()
      .split('\n')
      .filter((line) => line.includes('"adopted":'))
      .map((line) => JSON.parse(line) as { adopted: string[]; records: number; spend: number })
      .filter((entry) => entry.adopted.includes(owner))
      .map((entry) => ({ by: spillIdOf(replica), records: entry.records, spend: entry.spend })),
  );
}

/**
 * PostgreSQL stopped with `mode` while two replicas serve traffic; the third answers `count`
 * requests meanwhile, which it can only spill, and is killed with SIGKILL once `/readyz` says all
 * are in its spill files. `afterKill` runs while PostgreSQL is still down. Returns every answer
 * and the killed replica's spill id once PostgreSQL is back.
 */
async function killOneDuringOutage(
  key: { key: string; name: string },
  options: { mode: 'fast' | 'immediate'; count: number; afterKill?: () => Promise<void> },
): Promise<{ answers: Asked[]; killed: string }> {
  const [first, second, third] = fleet.fleet().replicas as [Replica, Replica, Replica];
  const single: Asked[] = [];
  for (const replica of [first, second, third]) single.push(asked(await chat(replica.url, key.key)));
  // Stored before the outage: what the third replica spills is the outage's.
  await expectEachAnswerStoredOnce(key, single);
  const traffic = [first, second].map((replica) => keepAsking(replica.url, key.key));
  await sleep(300);
  await fleet.postgres().stop(options.mode);
  const spilled: Asked[] = [];
  for (let index = 0; index < options.count; index++) spilled.push(asked(await chat(third.url, key.key)));
  let spill: Counts | undefined;
  await eventually(async () => {
    spill = await spillOf(third);
    return spill.records === options.count && spill.spend === options.count;
  }, REPLAY_BOUND_MS, "the third replica's answers in its spill files");
  const killed = spillIdOf(third);
  const exited = new Promise((resolve) => third.process.child.once('exit', resolve));
  third.process.child.kill('SIGKILL');
  await exited;
  await options.afterKill?.();
  await sleep(OUTAGE_MS / 2);
  await fleet.postgres().start();
  for (const replica of [first, second]) single.push(asked(await chat(replica.url, key.key)));
  return { answers: [...single, ...spilled, ...(await Promise.all(traffic.map((loop) => loop.stop()))).flat()], killed };
}

it.skipIf(!fleet.available)(
  'PostgreSQL stopped (immediate) mid-traffic and one replica killed with SIGKILL meanwhile: another adopts its spill files and replays them exactly once',
  async () => {
    const key = { name: 'immediate-stop', ...(await createFleetKey(fleet.fleet().replicas[0]!.url, { name: 'immediate-stop' })) };
    const { answers, killed } = await killOneDuringOutage(key, { mode: 'immediate', count: 12 });
    await expectEachAnswerStoredOnce(key, answers);
    const adoptions = adoptionsOf(killed);
    expect(adoptions.map(({ records, spend }) => ({ records, spend }))).toEqual([{ records: 12, spend: 12 }]);
    expect([spillIdOf(fleet.fleet().replicas[0]!), spillIdOf(fleet.fleet().replicas[1]!)]).toContain(adoptions[0]!.by);
    // Back to three replicas for the next test.
    await fleet.fleet().restart(2);
  },
  120_000,
);

it.skipIf(!fleet.available)(
  'a replica killed with SIGKILL during an outage and restarted in the same directory: its spill files are adopted once, by its own restart or another replica',
  async () => {
    const key = { name: 'restarted', ...(await createFleetKey(fleet.fleet().replicas[0]!.url, { name: 'restarted' })) };
    // The restart waits for PostgreSQL (serve retries until the database answers), then adopts, racing the others' watch.
    let restarted: Promise<Replica> | undefined;
    const { answers, killed } = await killOneDuringOutage(key, {
      mode: 'fast',
      count: 12,
      afterKill: async () => {
        restarted = fleet.fleet().restart(2);
      },
    });
    await restarted;
    await expectEachAnswerStoredOnce(key, answers);
    expect(adoptionsOf(killed).map(({ records, spend }) => ({ records, spend }))).toEqual([{ records: 12, spend: 12 }]);
  },
  120_000,
);
