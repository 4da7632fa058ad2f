import type { Database, Statement } from 'better-sqlite3';
import type { SpendRow } from '../core/spend-row.js';
import type { RequestRecord } from '../core/request-record.js';
import { pruneRecords } from './prune-records.js';
import { MINUTE_MS, recordFacts, type RecordFacts } from './record-facts.js';
import { BREAKDOWN_TABLES, breakdownRollups, type BreakdownTable } from './breakdown-rollups.js';
import { breakdownPrune, breakdownUpsert, ROLLUP_PRUNES, ROLLUP_UPSERTS } from './rollup-statements.js';
import { cacheRollups, requestRollups, spendRollups } from './stats-rollups.js';
import { attemptRows, requestRow, spendTableRow } from './table-rows.js';

/**
 * The batched inserts on an SQLite connection: statements prepared once, one transaction per
 * batch (all or nothing). Rows whose key is already stored are skipped, so a batch written
 * twice — its commit lost in transit, or replayed from a spill file — is stored once; any other
 * constraint failure fails the batch (`OR IGNORE` would drop such a row silently).
 *
 * These bypass kysely: its SQLite driver prepares every statement it runs, which at gateway
 * volume cost more than the inserts themselves.
 *
 * With `maxRecords` (an in-memory store, whose growth is the process's), each batch's transaction
 * also drops the oldest records past that many, so the bound holds after every write.
 *
 * The same transaction adds the newly stored rows to the dashboard's per-minute rollups
 * (stats-rollups.ts), so a row skipped as already stored is not counted twice.
 */
export class SqliteInserts {
  readonly #database: Database;
  readonly #maxRecords: number | undefined;
  /** Records stored, kept only when bounded: counting the table on every batch would cost more than the batch. */
  #recordCount = 0;
  readonly #insertRequest: Statement;
  readonly #insertAttempt: Statement;
  readonly #insertSpend: Statement;
  readonly #upsertRequestMinute: Statement;
  readonly #upsertLatencyMinute: Statement;
  readonly #upsertSpendMinute: Statement;
  readonly #upsertCacheMinute: Statement;
  readonly #upsertBreakdowns: [BreakdownTable, Statement][];
  readonly #pruneBreakdowns: Statement[];
  /** Returns the record count after the batch, applied only once the transaction has committed. */
  readonly #writeRecords: (batch: readonly RequestRecord[], texts: readonly string[] | undefined) => number;
  readonly #writeSpend: (rows: readonly SpendRow[]) => void;

  constructor(database: Database, options: { maxRecords?: number } = {}) {
    this.#database = database;
    this.#maxRecords = options.maxRecords;
    if (this.#maxRecords !== undefined) this.#recordCount = database.prepare('SELECT count(*) FROM requests').pluck().get() as number;
    // Named parameters: each statement binds the row object `table-rows.ts` builds for every store kind.
    this.#insertRequest = database.prepare(
      `INSERT INTO requests (id, created_at, created_ms, status, http_status, route, model_requested, key_name, origin, stream, latency_ms, record_json,
         outcome, served_connection, served_model, fallback, team_id)
       VALUES (@id, @created_at, @created_ms, @status, @http_status, @route, @model_requested, @key_name, @origin, @stream, @latency_ms, @record_json,
         @outcome, @served_connection, @served_model, @fallback, @team_id)
       ON CONFLICT (id) DO NOTHING`,
    );
    this.#insertAttempt = database.prepare(
      `INSERT INTO attempts (request_id, n, connection, provider, model, kind, http_status, latency_ms, committed)
       VALUES (@request_id, @n, @connection, @provider, @model, @kind, @http_status, @latency_ms, @committed) ON CONFLICT (request_id, n) DO NOTHING`,
    );
    this.#insertSpend = database.prepare(
      `INSERT INTO spend (request_id, attempt_n, key_id, key_name, route, connection, provider, model, input_tokens, output_tokens,
         cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, cost_micros, estimated, priced, probe, origin, created_ms)
       VALUES (@request_id, @attempt_n, @key_id, @key_name, @route, @connection, @provider, @model, @input_tokens, @output_tokens,
         @cache_read_tokens, @cache_write_tokens, @cache_write_1h_tokens, @cost_micros, @estimated, @priced, @probe, @origin, @created_ms)
       ON CONFLICT (request_id, attempt_n) DO NOTHING`,
    );
    this.#upsertRequestMinute = database.prepare(ROLLUP_UPSERTS.requestMinute);
    this.#upsertLatencyMinute = database.prepare(ROLLUP_UPSERTS.latencyMinute);
    this.#upsertSpendMinute = database.prepare(ROLLUP_UPSERTS.spendMinute);
    this.#upsertCacheMinute = database.prepare(ROLLUP_UPSERTS.cacheMinute);
    const breakdownTables = Object.keys(BREAKDOWN_TABLES) as BreakdownTable[];
    this.#upsertBreakdowns = breakdownTables.map((table) => [table, database.prepare(breakdownUpsert(table))]);
    this.#pruneBreakdowns = breakdownTables.map((table) => database.prepare(breakdownPrune(table)));
    this.#writeRecords = database.transaction((batch: readonly RequestRecord[], texts: readonly string[] | undefined) => {
      let count = this.#recordCount;
      const stored = batch.map(recordFacts).filter((facts, index) => this.#storeRecord(facts, texts?.[index]) === 1);
      count += stored.length;
      const rollups = requestRollups(stored);
      for (const row of rollups.minutes) this.#upsertRequestMinute.run(row);
      for (const row of rollups.latencies) this.#upsertLatencyMinute.run(row);
      const breakdowns = breakdownRollups(stored, rollups.latencies);
      for (const [table, upsert] of this.#upsertBreakdowns) for (const row of breakdowns[table]) upsert.run(row);
      if (this.#maxRecords !== undefined && count > this.#maxRecords) {
        count -= pruneRecords(database, { olderThanMs: Number.POSITIVE_INFINITY, limit: count - this.#maxRecords });
      }
      return count;
    });
    this.#writeSpend = database.transaction((rows: readonly SpendRow[]) => {
      const stored = rows.filter((row) => this.#insertSpend.run(spendTableRow(row)).changes === 1);
      for (const row of spendRollups(stored)) this.#upsertSpendMinute.run(row);
      for (const row of cacheRollups(stored)) this.#upsertCacheMinute.run(row);
    });
  }

  /** `texts`: each record as JSON already, when it came that way (it is stored as that text). */
  records(batch: readonly RequestRecord[], texts?: readonly string[]): void {
    this.#recordCount = this.#writeRecords(batch, texts);
  }

  spend(rows: readonly SpendRow[]): void {
    this.#writeSpend(rows);
  }

  /** Deletes up to `limit` records older than `olderThanMs` (see `pruneRecords`), and their minutes' rollups; returns how many records. */
  pruneRecords(options: { olderThanMs: number; limit: number }): number {
    const pruned = pruneRecords(this.#database, options);
    this.#database.prepare(ROLLUP_PRUNES.requestMinutes).run(Math.floor(options.olderThanMs / MINUTE_MS));
    this.#database.prepare(ROLLUP_PRUNES.latencyMinutes).run(Math.floor(options.olderThanMs / MINUTE_MS));
    this.#database.prepare(ROLLUP_PRUNES.cacheMinutes).run(Math.floor(options.olderThanMs / MINUTE_MS));
    for (const prune of this.#pruneBreakdowns) prune.run(Math.floor(options.olderThanMs / MINUTE_MS));
    this.#recordCount -= pruned;
    return pruned;
  }

  /** The connection, for the audited changes that run their own transaction on it (audited-writes.ts). */
  get database(): Database {
    return this.#database;
  }

  /** Returns 1 when the record is new, 0 when it was stored already. */
  #storeRecord(facts: RecordFacts, text: string | undefined): number {
    const stored = this.#insertRequest.run(requestRow(facts.record, text, facts)).changes;
    for (const attempt of attemptRows(facts.record)) this.#insertAttempt.run(attempt);
    return stored;
  }
}
