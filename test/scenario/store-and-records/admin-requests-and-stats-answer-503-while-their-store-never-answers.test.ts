import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp, type App } from '../../../src/app.js';
import { ConfigSource } from '../../../src/config/config-source.js';
import { startMockProvider, type MockProvider } from '../../../src/mock/mock-provider.js';
import { migrate } from '../../../src/store/migrate.js';
import { openStore } from '../../../src/store/open-database.js';
import { SqliteInserts } from '../../../src/store/sqlite-inserts.js';
import { writesInThread, type StoreWrites } from '../../../src/store/store-writes.js';
import { postChat } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, hello } from '../scenario-helpers.js';

const directory = mkdtempSync(join(tmpdir(), 'switchyard-silent-store-'));
let app: App;
let mock: MockProvider;
let url: string;
/** Lets the store's writes answer again (before the gateway closes, which writes what is pending). */
let answerAgain: () => void;

beforeAll(async () => {
  const configFile = join(directory, 'config.yaml');
  writeFileSync(
    configFile,
    `
auth: { mode: none }
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  chat: { targets: [{ connection: mock-openai, model: gpt-mock }] }
`,
  );
  const opened = openStore({ kind: 'sqlite', path: ':memory:' });
  await migrate(opened.db);
  const inserts = writesInThread(new SqliteInserts(opened.sqlite));
  // Reads answer; a write is taken and never answered, as by a store stuck behind a lock or a dead disk.
  const silence = new Promise<void>((resolve) => (answerAgain = resolve));
  const writes: StoreWrites = {
    ...inserts,
    records: (batch) => silence.then(() => inserts.records(batch)),
    spend: (rows) => silence.then(() => inserts.spend(rows)),
  };
  mock = await startMockProvider();
  app = await createApp({ mockUrl: () => mock.url, configSource: ConfigSource.load(configFile, { env: {} }), store: { db: opened.db, writes } });
  url = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  answerAgain();
  await app.close();
  await mock.close();
  rmSync(directory, { recursive: true, force: true });
});

const adminGet = (path: string) => fetch(`${url}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, signal: AbortSignal.timeout(10_000) });

it('GET /admin/requests and /admin/stats answer 503 gateway_unavailable, not wait, while the store takes a write and never answers it', async () => {
  const answered = await postChat(url, { model: 'chat', messages: hello });
  expect(answered.status).toBe(200);
  // Each first writes what is pending: that write never ends, so only a bound on the whole call answers.
  for (const path of ['/admin/requests', `/admin/stats?since=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}`]) {
    const response = await adminGet(path);
    expect(response.status, path).toBe(503);
    expect(response.headers.get('retry-after'), path).toBe('1');
    expect(await response.json(), path).toMatchObject({ error: { code: 'gateway_unavailable', type: 'server_error' } });
  }
  // A recent record is still read from memory meanwhile.
  const recent = await adminGet(`/admin/requests/${answered.headers.get('x-request-id')}`);
  expect(recent.status).toBe(200);
}, 30_000);
