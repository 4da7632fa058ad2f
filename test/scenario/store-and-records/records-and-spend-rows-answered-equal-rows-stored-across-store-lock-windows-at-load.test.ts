import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresForThisFile } from '../../support/postgres-server.js';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { createKey, keysAuth } from '../../support/virtual-keys.js';
import { askPaid, queryPostgres } from '../postgres-helpers.js';
import { ADMIN_TOKEN, eventually, metricsText, metricValue } from '../scenario-helpers.js';

/**
 * Traffic from several callers while the store is locked again and again (another connection
 * holding the tables), and meanwhile reads that must first write what is pending (a key's spend,
 * the admin list): those start spill replays while the timer is still spilling new items, the
 * race that once deleted a spill file with items appended during its replay.
 */
const postgres = postgresForThisFile();
const directory = mkdtempSync(join(tmpdir(), 'switchyard-lock-windows-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const CALLERS = 6;
const WINDOWS = 6;
const WINDOW_MS = 1_200;
const GAP_MS = 400;

interface StoreUnderTest {
  storeYaml: string;
  /** Holds the store's tables locked from another connection until the returned release is called. */
  lock(): Promise<() => Promise<void>>;
  /** Rows stored per request id. */
  counts(ids: string[]): Promise<{ records: number; spend: number }>;
}

function gatewayYaml(storeYaml: string): string {
  return `
${storeYaml}
${keysAuth(ADMIN_TOKEN)}
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  paid:
    retries: 0
    targets: [{ connection: mock-openai, model: gpt-paid, price: { input_per_mtok: 1000, output_per_mtok: 1000 } }]
`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function answeredEqualsStored(store: StoreUnderTest): Promise<void> {
  const gateway: TestGateway = await startGateway(gatewayYaml(store.storeYaml));
  try {
    const known = await createKey(gateway.url, ADMIN_TOKEN, { name: 'known' });
    expect((await askPaid(gateway.url, known.key)).status).toBe(200);
    await gateway.app.records.flush();

    let stopping = false;
    const answered: string[] = [];
    const callers = Array.from({ length: CALLERS }, async () => {
      while (!stopping) {
        const response = await askPaid(gateway.url, known.key);
        await response.arrayBuffer();
        if (response.status === 200) answered.push(response.headers.get('x-request-id')!);
      }
    });
    // Each of these writes what is pending first: a replay started by a read, not by the retry timer.
    const readers = (async () => {
      const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
      for (let turn = 0; !stopping; turn++) {
        const path = turn % 2 === 0 ? `/admin/keys/${known.id}/spend` : '/admin/requests?limit=1';
        await (await fetch(`${gateway.url}${path}`, { headers: admin, signal: AbortSignal.timeout(15_000) })).arrayBuffer();
        await sleep(30);
      }
    })();
    for (let window = 0; window < WINDOWS; window++) {
      const release = await store.lock();
      await sleep(WINDOW_MS);
      await release();
      await sleep(GAP_MS);
    }
    stopping = true;
    await Promise.all([...callers, readers]);

    expect(answered.length).toBeGreaterThan(CALLERS * WINDOWS);
    let stored = { records: 0, spend: 0 };
    await eventually(
      async () => {
        await gateway.app.records.flush().catch(() => undefined);
        stored = await store.counts(answered);
        return stored.records === answered.length && stored.spend === answered.length;
      },
      20_000,
      'every answered request stored with its spend row',
    );
    expect(stored).toEqual({ records: answered.length, spend: answered.length });
    const metrics = await metricsText(gateway.url);
    for (const kind of ['records', 'spend']) {
      expect(metricValue(metrics, 'switchyard_spill_depth', { kind }), kind).toBe(0);
      expect(metricValue(metrics, 'switchyard_sink_dropped_total', { kind }), kind).toBe(0);
    }
  } finally {
    await gateway.close();
  }
}

describe('records and spend rows answered = rows stored across repeated store lock windows at load', () => {
  it('on SQLite (another connection holding the write lock)', async () => {
    const path = join(directory, 'switchyard.db');
    await answeredEqualsStored({
      storeYaml: `store: { kind: sqlite, path: "${path}" }`,
      async lock() {
        const connection = new Database(path, { timeout: 5_000 });
        connection.exec('BEGIN EXCLUSIVE');
        return async () => {
          connection.exec('ROLLBACK');
          connection.close();
        };
      },
      async counts(ids) {
        const connection = new Database(path, { readonly: true });
        try {
          const marks = ids.map(() => '?').join(',');
          const records = connection.prepare(`SELECT count(*) AS n FROM requests WHERE id IN (${marks})`).get(...ids) as { n: number };
          const spend = connection.prepare(`SELECT count(*) AS n FROM spend WHERE request_id IN (${marks})`).get(...ids) as { n: number };
          return { records: records.n, spend: spend.n };
        } finally {
          connection.close();
        }
      },
    });
  }, 120_000);

  describe.skipIf(!postgres.available)('on PostgreSQL', () => {
    let url: string;
    beforeAll(async () => {
      url = await postgres.server().createDatabase('lock_windows');
    }, 60_000);

    it('(another session holding the tables in ACCESS EXCLUSIVE mode)', async () => {
      await answeredEqualsStored({
        storeYaml: `store: { kind: postgres, url: "${url}", spill_dir: "${directory}" }`,
        async lock() {
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          await client.query('BEGIN');
          await client.query('LOCK TABLE requests, attempts, spend IN ACCESS EXCLUSIVE MODE');
          return async () => {
            await client.query('ROLLBACK');
            await client.end();
          };
        },
        async counts(ids) {
          const [row] = await queryPostgres<{ records: number; spend: number }>(
            url,
            'SELECT (SELECT count(*) FROM requests WHERE id = ANY($1))::int AS records, (SELECT count(*) FROM spend WHERE request_id = ANY($1))::int AS spend',
            [ids],
          );
          return row!;
        },
      });
    }, 120_000);
  });
});
