import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp, type App } from '../../../src/app.js';
import { startMockProvider, type MockProvider } from '../../../src/mock/mock-provider.js';
import { ConfigSource } from '../../../src/config/config-source.js';
import { migrate } from '../../../src/store/migrate.js';
import { openDatabase } from '../../../src/store/open-database.js';
import type { DatabaseSchema } from '../../../src/store/schema.js';
import { StoreThread } from '../../../src/store/store-thread.js';
import { threadDialect } from '../../../src/store/thread-dialect.js';
import { postChat } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, hello } from '../scenario-helpers.js';
import { createKey, keysAuth } from '../../support/virtual-keys.js';

/** Real SQLite work that keeps the store thread busy for well over the 1 s bound. */
const LONG_STATEMENT = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000000) SELECT count(*) FROM c';

const directory = mkdtempSync(join(tmpdir(), 'switchyard-slow-store-'));
const storePath = join(directory, 'switchyard.db');
let thread: StoreThread;
let app: App;
let mock: MockProvider;
let url: string;

beforeAll(async () => {
  const configFile = join(directory, 'config.yaml');
  writeFileSync(
    configFile,
    `
store: { kind: sqlite, path: "${storePath}" }
${keysAuth(ADMIN_TOKEN)}
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  chat:
    targets: [{ connection: mock-openai, model: gpt-mock }]
`,
  );
  const migrated = openDatabase({ kind: 'sqlite', path: storePath });
  await migrate(migrated);
  await migrated.destroy();
  // The gateway's own store thread, held here so the test can give it something long to do.
  thread = new StoreThread(storePath);
  await thread.ready();
  mock = await startMockProvider();
  app = await createApp({ mockUrl: () => mock.url, configSource: ConfigSource.load(configFile, { env: {} }), store: { db: new Kysely<DatabaseSchema>({ dialect: threadDialect(thread) }), writes: thread } });
  url = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await app.close();
  await mock.close();
  rmSync(directory, { recursive: true, force: true });
});

async function answered(call: Promise<Response>): Promise<{ status: number; body: string }> {
  const response = await call;
  return { status: response.status, body: await response.text() };
}

const ask = (key: string) => postChat(url, { model: 'chat', messages: hello }, { authorization: `Bearer ${key}` });

it('while the store thread cannot answer, a key never seen gets a 503 gateway_unavailable within the bound, and the rest of the gateway does not wait', async () => {
  const known = (await createKey(url, ADMIN_TOKEN, { name: 'known' })).key;
  const unseen = (await createKey(url, ADMIN_TOKEN, { name: 'unseen' })).key;
  expect((await ask(known)).status).toBe(200);

  // The order things settle in, not their times: a loaded machine stretches every one of them.
  const settled: string[] = [];
  const noting = <T>(what: string, call: Promise<T>) => call.finally(() => settled.push(what));
  // The thread gives up on this call at the 1 s bound, though the statement runs on for seconds.
  const busy = noting('the busy call', thread.query(LONG_STATEMENT, [])).catch(() => undefined);
  const [refused, health, knownAnswer] = await Promise.all([
    noting('unseen key', answered(ask(unseen))),
    noting('health', answered(fetch(`${url}/healthz`))),
    noting('known key', answered(ask(known))),
  ]);
  // The health check and the known key were answered before the busy call's bound was up: neither
  // waited for the store. The unseen key's lookup waited its own bound, after it.
  expect(settled.indexOf('health')).toBeLessThan(settled.indexOf('the busy call'));
  expect(settled.indexOf('known key')).toBeLessThan(settled.indexOf('the busy call'));
  expect(settled.indexOf('unseen key')).toBeGreaterThan(settled.indexOf('the busy call'));
  expect(refused.status).toBe(503);
  expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'gateway_unavailable', type: 'server_error' } });
  expect(health.status).toBe(200);
  expect(knownAnswer.status).toBe(200);
  await busy;

  // A refusal for want of an answer is not remembered as "unknown": once the thread is free, the key works.
  let status = 0;
  for (let attempt = 0; attempt < 10 && status !== 200; attempt++) status = (await ask(unseen)).status;
  expect(status).toBe(200);
  // The provider saw the known key's two requests and the unseen key's last one; never the refused one.
  expect(mock.attempts).toHaveLength(3);
});
