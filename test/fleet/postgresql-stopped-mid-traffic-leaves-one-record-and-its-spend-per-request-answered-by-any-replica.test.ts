import { expect, it } from 'vitest';
import { queryPostgres } from '../scenario/postgres-helpers.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { asked, chat, createFleetKey, fleetForThisFile, keepAsking, mockConnectionYaml, type Asked } from './fleet-helpers.js';

const fleet = fleetForThisFile({
  yaml: (mockUrl) => `${mockConnectionYaml(mockUrl)}
routes:
  r:
    retries: 0
    targets: [{ connection: mock, model: gpt-paid, price: { input_per_mtok: 1000, output_per_mtok: 1000 } }]`,
});

it.skipIf(!fleet.available)(
  'PostgreSQL stopped mid-traffic, then started: every request any replica answered has exactly one record and its spend row; meanwhile known keys work everywhere and an unseen one gets 503',
  async () => {
    const replicas = fleet.fleet().replicas;
    const known = await createFleetKey(replicas[0]!.url, { name: 'known' });
    const unseen = await createFleetKey(replicas[0]!.url, { name: 'unseen' });
    const single: Asked[] = [];
    // Every replica has seen the known key before the outage.
    for (const replica of replicas) single.push(asked(await chat(replica.url, known.key)));
    expect(single.map((answer) => answer.status)).toEqual(replicas.map(() => 200));

    const traffic = replicas.map((replica) => keepAsking(replica.url, known.key));
    await fleet.postgres().stop();
    const duringUnseen = asked(await chat(replicas[1]!.url, unseen.key));
    expect(duringUnseen).toMatchObject({ status: 503, code: 'gateway_unavailable' });
    single.push(duringUnseen);
    for (let index = 0; index < 10; index++) single.push(asked(await chat(replicas[index % replicas.length]!.url, known.key)));

    await fleet.postgres().start();
    const restartedAtMs = Date.now();
    for (const replica of replicas) single.push(asked(await chat(replica.url, known.key)));
    const answers = [...single, ...(await Promise.all(traffic.map((loop) => loop.stop()))).flat()];
    const served = answers.filter((answer) => answer.status === 200);
    expect(answers.filter((answer) => answer.status !== 200)).toEqual([duringUnseen]);
    expect(fleet.mock().attemptsFor('gpt-paid')).toHaveLength(served.length);

    // Each replica replays its own spill within 5 s of PostgreSQL's return, once.
    const ids = answers.map((answer) => answer.id);
    const servedIds = new Set(served.map((answer) => answer.id));
    const expected = [...ids].sort().map((id) => ({ id, records: 1, spend: servedIds.has(id) ? 1 : 0 }));
    type Count = { id: string; records: number; spend: number };
    let counts: Count[] = [];
    await eventually(
      async () => {
        counts = await queryPostgres<Count>(
          fleet.databaseUrl(),
          `SELECT id, (SELECT count(*) FROM requests r WHERE r.id = ids.id)::int AS records, (SELECT count(*) FROM spend s WHERE s.request_id = ids.id)::int AS spend
           FROM unnest($1::text[]) AS ids(id) ORDER BY id`,
          [ids],
        ).catch(() => []);
        return counts.length === ids.length && counts.every((count) => count.records === 1 && count.spend === (servedIds.has(count.id) ? 1 : 0));
      },
      Math.max(0, restartedAtMs + 5_000 - Date.now()),
      'every answered request recorded once, with its spend',
    );
    expect(counts).toEqual(expected);
    const total = await queryPostgres<{ records: number; spend: number }>(
      fleet.databaseUrl(),
      'SELECT (SELECT count(*) FROM requests)::int AS records, (SELECT count(*) FROM spend)::int AS spend',
    );
    expect(total).toEqual([{ records: answers.length, spend: served.length }]);
  },
  90_000,
);
