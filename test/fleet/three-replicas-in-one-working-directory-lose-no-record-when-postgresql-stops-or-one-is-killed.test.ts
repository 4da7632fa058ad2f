import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { queryPostgres } from '../scenario/postgres-helpers.js';
import { eventually } from '../scenario/scenario-helpers.js';
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
