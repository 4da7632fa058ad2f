import { expect, it } from 'vitest';
import type { RequestRecord } from '../../src/core/request-record.js';
import { queryPostgres } from '../scenario/postgres-helpers.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { adminCall, chat, createFleetKey, fleetForThisFile, mockConnectionYaml } from './fleet-helpers.js';

const fleet = fleetForThisFile({
  yaml: (mockUrl) => `${mockConnectionYaml(mockUrl)}
routes:
  r: { targets: [{ connection: mock, model: gpt-listed, price: { input_per_mtok: 1000, output_per_mtok: 1000 } }] }`,
});

it.skipIf(!fleet.available)('GET /admin/requests on replica A lists replica B’s requests too, and the spend table has one row per request from both', async () => {
  const [a, b] = fleet.fleet().replicas;
  const { id: keyId, key } = await createFleetKey(a!.url, { name: 'listed' });
  const idsBy = { a: [] as string[], b: [] as string[] };
  for (let index = 0; index < 3; index++) {
    for (const [name, replica] of [['a', a], ['b', b]] as const) {
      const answer = await chat(replica!.url, key);
      expect(answer.status).toBe(200);
      idsBy[name].push(answer.headers.get('x-request-id')!);
    }
  }
  const everyId = [...idsBy.a, ...idsBy.b].sort();

  // Each replica writes its records in the background; A answers from the shared store.
  let listed: RequestRecord[] = [];
  await eventually(
    async () => {
      listed = (await adminCall<{ data: RequestRecord[] }>(a!.url, 'GET', '/admin/requests?limit=50')).data;
      return everyId.every((id) => listed.some((record) => record.id === id));
    },
    5_000,
    'replica A listing every request',
  );
  expect(listed.map((record) => record.id).sort()).toEqual(everyId);
  const fromB = await adminCall<RequestRecord>(a!.url, 'GET', `/admin/requests/${idsBy.b[0]}`);
  expect(fromB).toMatchObject({ id: idsBy.b[0], http_status: 200 });

  let rows: { request_id: string; rows: number }[] = [];
  await eventually(
    async () => {
      rows = await queryPostgres(fleet.databaseUrl(), 'SELECT request_id, count(*)::int AS rows FROM spend WHERE key_id = $1 GROUP BY request_id ORDER BY request_id', [keyId]);
      return rows.length === everyId.length;
    },
    5_000,
    'the spend rows of both replicas',
  );
  expect(rows).toEqual(everyId.map((id) => ({ request_id: id, rows: 1 })));
  expect(fleet.mock().attemptsFor('gpt-listed')).toHaveLength(everyId.length);
}, 60_000);
