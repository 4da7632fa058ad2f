import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, hello } from '../scenario-helpers.js';

const MAX_RECORDS = 5;
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
store: { kind: sqlite, path: ":memory:", max_records: ${MAX_RECORDS} }
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  chat:
    targets: [{ connection: mock-openai, model: gpt-mock }]
`);
});
afterAll(() => gateway.close());

const admin = { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } };

it('an in-memory store keeps at most store.max_records, dropping the oldest first', async () => {
  const ids: string[] = [];
  for (let index = 0; index < 12; index++) {
    const response = await postChat(gateway.url, { model: 'chat', messages: hello });
    expect(response.status).toBe(200);
    ids.push(response.headers.get('x-request-id')!);
    // Several batches, so the bound holds write after write, not only at the end.
    if (index % 4 === 3) await gateway.app.records.flush();
  }
  const listed = (await (await fetch(`${gateway.url}/admin/requests?limit=1000`, admin)).json()) as { data: { id: string }[] };
  expect(listed.data.map((record) => record.id)).toEqual(ids.slice(-MAX_RECORDS).reverse());
  // Nor does the readable-before-written cache keep more.
  expect((await fetch(`${gateway.url}/admin/requests/${ids[0]}`, admin)).status).toBe(404);
  expect((await fetch(`${gateway.url}/admin/requests/${ids.at(-1)}`, admin)).status).toBe(200);
  expect(gateway.mock.attempts).toHaveLength(12);
});
