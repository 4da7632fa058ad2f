import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely, KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp, type App } from '../../../src/app.js';
import { startMockProvider, type MockProvider } from '../../../src/mock/mock-provider.js';
import { ConfigSource } from '../../../src/config/config-source.js';
import { migrate } from '../../../src/store/migrate.js';
import { openStore } from '../../../src/store/open-database.js';
import { SqliteInserts } from '../../../src/store/sqlite-inserts.js';
import type { StoreWrites } from '../../../src/store/store-writes.js';
import type { DatabaseSchema } from '../../../src/store/schema.js';
import { sqliteAudited } from '../../../src/store/audited-writes.js';
import { postChat } from '../../support/start-gateway.js';
import { createKey, keysAuth } from '../../support/virtual-keys.js';

/** The store, made unreachable on purpose: every statement and every insert fails while `failing` is set. */
class UnreachableStore implements KyselyPlugin {
  failing = false;

  /** The batched inserts, refused like everything else during the outage. */
  writes(sqlite: SqliteInserts): StoreWrites {
    const refuseDuringOutage = () => {
      if (this.failing) throw new Error('store unreachable (on purpose)');
    };
    return {
      records: async (batch) => {
        refuseDuringOutage();
        sqlite.records(batch);
      },
      spend: async (rows) => {
        refuseDuringOutage();
        sqlite.spend(rows);
      },
      pruneRecords: async (options) => {
        refuseDuringOutage();
        return sqlite.pruneRecords(options);
      },
      audited: async (change) => {
        refuseDuringOutage();
        return sqliteAudited(sqlite.database, change);
      },
      close: async () => undefined,
    };
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (this.failing) throw new Error('store unreachable (on purpose)');
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

const ADMIN_TOKEN = 'outage-admin-token';
let directory: string;
let db: Kysely<DatabaseSchema>;
let outage: UnreachableStore;
let app: App;
let mock: MockProvider;
let url: string;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'switchyard-outage-'));
  const storePath = join(directory, 'switchyard.db');
  const configFile = join(directory, 'config.yaml');
  writeFileSync(
    configFile,
    `
store: { kind: sqlite, path: "${storePath}" }
${keysAuth(ADMIN_TOKEN)}
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  paid:
    targets: [{ connection: mock-openai, model: gpt-paid, price: { input_per_mtok: 1000, output_per_mtok: 1000 } }]
`,
  );
  const configSource = ConfigSource.load(configFile, { env: {} });
  const base = openStore(configSource.current.store);
  await migrate(base.db);
  outage = new UnreachableStore();
  db = base.db.withPlugin(outage);
  mock = await startMockProvider();
  app = await createApp({ mockUrl: () => mock.url, configSource, store: { db, writes: outage.writes(new SqliteInserts(base.sqlite)) } });
  url = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  outage.failing = false;
  await app.close();
  await mock.close();
  rmSync(directory, { recursive: true, force: true });
});

const ask = (key: string) => postChat(url, { model: 'paid', messages: [{ role: 'user', content: 'hello' }] }, { authorization: `Bearer ${key}` });

async function spendRowsOfKey(keyId: string): Promise<number> {
  const result = await sql<{ count: number }>`select count(*) as count from spend where key_id = ${keyId}`.execute(db);
  return Number(result.rows[0]!.count);
}

it('while the store is down, known keys keep working, unknown keys get 503, and every spend row and record lands exactly once when it is back', async () => {
  const seen = await createKey(url, ADMIN_TOKEN, { name: 'seen-before' });
  const unseen = await createKey(url, ADMIN_TOKEN, { name: 'never-used' });
  expect((await ask(seen.key)).status).toBe(200);

  outage.failing = true;
  const requestIds: string[] = [];
  for (let index = 0; index < 3; index++) {
    const response = await ask(seen.key);
    expect(response.status).toBe(200);
    requestIds.push(response.headers.get('x-request-id')!);
  }
  const refused = await ask(unseen.key);
  expect(refused.status).toBe(503);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('gateway_unavailable');

  // Writes fail: what the store refused is in the spill file, not lost.
  await app.records.flush().catch(() => undefined);
  const metrics = await (await fetch(`${url}/metrics`)).text();
  expect(Number(/switchyard_spill_depth\{kind="records"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThan(0);

  outage.failing = false;
  await app.records.flush();
  // The spend endpoint flushes the ledger before it reads it.
  const spend = (await (await fetch(`${url}/admin/keys/${seen.id}/spend`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as { usd: number };
  expect(spend.usd).toBeGreaterThan(0);
  expect(await spendRowsOfKey(seen.id)).toBe(4);
  for (const id of requestIds) {
    const record = await fetch(`${url}/admin/requests/${id}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(record.status).toBe(200);
  }
  const stored = await sql<{ count: number }>`select count(*) as count from requests`.execute(db);
  expect(Number(stored.rows[0]!.count)).toBeGreaterThanOrEqual(5);

  // Flushing again (a replay after a crash would do the same) duplicates nothing.
  await app.records.flush();
  expect(await spendRowsOfKey(seen.id)).toBe(4);
  const after = await (await fetch(`${url}/metrics`)).text();
  expect(after).toMatch(/switchyard_spill_depth\{kind="records"\} 0/);
  expect(after).toMatch(/switchyard_spill_depth\{kind="spend"\} 0/);
});
