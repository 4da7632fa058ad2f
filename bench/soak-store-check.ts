import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { metricsText, metricValue } from '../test/scenario/scenario-helpers.js';

/** Rows per request id, of the soak's key. */
interface StoredRows {
  records: Map<string, number>;
  spend: Map<string, number>;
}

/** Between looks at the spill files and the store while the replicas drain. */
const drainPollMs = 1_000;
/** Counts that have not moved for this many looks in a row, with every spill file empty, are final. */
const stableLooks = 3;

/**
 * Waits until every replica's spill file is empty and the soak key's rows in the store have
 * stopped growing, at most `boundMs`; returns whether they settled and how long it took.
 */
export async function waitForDrain(replicaUrls: readonly string[], databaseUrl: string, key: { id: string; name: string }, boundMs: number): Promise<{ settled: boolean; waitedMs: number }> {
  const startedAtMs = Date.now();
  let last = '';
  let unchanged = 0;
  while (Date.now() - startedAtMs < boundMs) {
    const spilled = await sumOverReplicas(replicaUrls, 'switchyard_spill_depth').catch(() => Number.NaN);
    const counts = await countRows(databaseUrl, key).catch(() => 'unreadable');
    unchanged = counts === last && counts !== 'unreadable' ? unchanged + 1 : 0;
    last = counts;
    if (spilled === 0 && unchanged >= stableLooks) return { settled: true, waitedMs: Date.now() - startedAtMs };
    await sleep(drainPollMs);
  }
  return { settled: false, waitedMs: Date.now() - startedAtMs };
}

/** A metric summed over every series on every replica (e.g. records and spend rows). */
export async function sumOverReplicas(replicaUrls: readonly string[], metric: string): Promise<number> {
  const texts = await Promise.all(replicaUrls.map((url) => metricsText(url)));
  return texts.reduce((sum, text) => sum + (metricValue(text, metric) ?? 0), 0);
}

export interface StoreCheck {
  answered: number;
  /** Answered requests with at least one record / spend row. */
  recordsOfAnswered: number;
  spendOfAnswered: number;
  /** Request ids with more than one record, or more than one spend row (one attempt each: retries 0). */
  duplicated: number;
  /** Error answers that carried a request id, and how many of them have a record. */
  errorsWithId: number;
  recordsOfErrors: number;
  /** Records and spend rows of the key for requests the soak never saw answered (given up on, cut). */
  unseenRecords: number;
  unseenSpend: number;
  pass: boolean;
}

/** Compares what the soak saw answered with what the store holds for its key. */
export async function checkStore(databaseUrl: string, key: { id: string; name: string }, answeredIds: readonly (string | undefined)[], errorIds: readonly string[]): Promise<StoreCheck> {
  const stored = await storedRows(databaseUrl, key);
  const has = (rows: Map<string, number>) => (id: string | undefined) => id !== undefined && (rows.get(id) ?? 0) > 0;
  const seen = new Set([...answeredIds, ...errorIds]);
  const unseen = (rows: Map<string, number>) => [...rows.keys()].filter((id) => !seen.has(id)).length;
  const duplicated = new Set([...stored.records, ...stored.spend].filter(([, count]) => count > 1).map(([id]) => id)).size;
  const check = {
    answered: answeredIds.length,
    recordsOfAnswered: answeredIds.filter(has(stored.records)).length,
    spendOfAnswered: answeredIds.filter(has(stored.spend)).length,
    duplicated,
    errorsWithId: errorIds.length,
    recordsOfErrors: errorIds.filter(has(stored.records)).length,
    unseenRecords: unseen(stored.records),
    unseenSpend: unseen(stored.spend),
  };
  return { ...check, pass: check.answered > 0 && check.recordsOfAnswered === check.answered && check.spendOfAnswered === check.answered && duplicated === 0 };
}

export function storeCheckLines(check: StoreCheck): string[] {
  return [
    `records stored / answered       ${check.recordsOfAnswered} / ${check.answered}`,
    `spend rows stored / answered    ${check.spendOfAnswered} / ${check.answered}`,
    `request ids stored twice        ${check.duplicated}`,
    `records of error answers        ${check.recordsOfErrors} / ${check.errorsWithId} (errors that carried a request id)`,
    `rows of requests never answered ${check.unseenRecords} records, ${check.unseenSpend} spend rows (requests the soak gave up on or saw cut)`,
    check.pass
      ? 'PASS: every answered request has exactly one record and one spend row'
      : `FAIL: ${check.answered === 0 ? 'nothing was answered' : 'answered requests without exactly one record and one spend row'}`,
  ];
}

async function storedRows(databaseUrl: string, key: { id: string; name: string }): Promise<StoredRows> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const records = await client.query<{ id: string; n: number }>('SELECT id, count(*)::int AS n FROM requests WHERE key_name = $1 GROUP BY id', [key.name]);
    const spend = await client.query<{ id: string; n: number }>('SELECT request_id AS id, count(*)::int AS n FROM spend WHERE key_id = $1 GROUP BY request_id', [key.id]);
    return { records: new Map(records.rows.map((row) => [row.id, row.n])), spend: new Map(spend.rows.map((row) => [row.id, row.n])) };
  } finally {
    await client.end();
  }
}

async function countRows(databaseUrl: string, key: { id: string; name: string }): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 2_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ records: number; spend: number }>(
      'SELECT (SELECT count(*) FROM requests WHERE key_name = $1)::int AS records, (SELECT count(*) FROM spend WHERE key_id = $2)::int AS spend',
      [key.name, key.id],
    );
    return `${rows[0]!.records}/${rows[0]!.spend}`;
  } finally {
    await client.end();
  }
}
