import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../store/schema.js';
import { RecentRecords } from './recent-records.js';
import { RecordWriter, type RecordWriterOptions } from './record-writer.js';
import { redactRecord } from './redact-record.js';
import type { RequestOrigin } from '../core/request-origin.js';
import type { RequestOutcome } from '../core/request-outcome.js';
import type { RequestRecord, RequestStatus } from '../core/request-record.js';

export interface RecordStoreOptions {
  /** For reading back; opened and migrated by the caller, who also destroys it after `close()`. */
  db: Kysely<DatabaseSchema>;
  /** How records are written: the batched inserts (on the store thread, or on `db`'s connection) and tuning. */
  writer: RecordWriterOptions;
  /** How many of the newest records are readable before their write lands. */
  recentLimit?: number;
  /** Secrets to scrub from attempt messages; asked on every add so config reloads apply. */
  knownSecrets?: () => ReadonlySet<string>;
}

export interface RecordFilter {
  route?: string;
  status?: RequestStatus;
  /** Records created at or after this: an ISO 8601 time or epoch milliseconds. */
  since?: string | number;
  origin?: RequestOrigin;
  /** A key's name, as records carry it. */
  keyName?: string;
  /** Only records of these teams' keys (team ids); none matches no record. */
  teams?: readonly string[];
  /** The deployment that served the request. */
  served?: { connection: string; model: string };
  /** Where the request ended (`requestOutcome`): records stored before outcomes were kept match none. */
  outcome?: RequestOutcome;
  /** Served by a non-primary target of a named route (true), or by its primary (false). */
  fallback?: boolean;
  /** A record's id: only records after it in the list order (older, or as old with a smaller id). */
  before?: string;
  /** Newest first; default 50, at most 1000. */
  limit?: number;
}

/** `list` was asked to page from a record the store does not hold. */
export class UnknownRecordError extends Error {
  constructor(readonly id: string) {
    super(`No request with id "${id}".`);
  }
}

const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 1_000;

const NO_SECRETS: ReadonlySet<string> = new Set();

/**
 * Request records: added on the request path (kept in memory and queued for a batched write),
 * read back by id or listed with filters for the admin API.
 */
export class RecordStore {
  readonly writer: RecordWriter;
  private readonly db: Kysely<DatabaseSchema>;
  private readonly recent: RecentRecords;
  private readonly knownSecrets: () => ReadonlySet<string>;

  constructor(options: RecordStoreOptions) {
    this.db = options.db;
    const recent = new RecentRecords(options.recentLimit);
    this.recent = recent;
    const { insert } = options.writer;
    // A record stays in memory only until its write lands; from then on it is read from the store.
    // Holding thousands of answered records for longer made every garbage collection slower.
    this.writer = new RecordWriter({
      ...options.writer,
      insert: async (batch) => {
        await insert(batch);
        for (const record of batch) recent.delete(record.id);
      },
    });
    this.knownSecrets = options.knownSecrets ?? (() => NO_SECRETS);
  }

  /** Synchronous and cheap: the database is not touched here. */
  add(record: RequestRecord): void {
    const redacted = redactRecord(record, this.knownSecrets);
    this.recent.set(redacted);
    this.writer.enqueue(redacted);
  }

  async get(id: string): Promise<RequestRecord | undefined> {
    const recent = this.recent.get(id);
    if (recent) return recent;
    const row = await this.db.selectFrom('requests').select(['record_json', 'origin']).where('id', '=', id).executeTakeFirst();
    return row ? asStored(parseRecord(row.record_json), row.origin) : undefined;
  }

  /**
   * Newest first (created time, then id), so `before` pages through without duplicates or gaps
   * while new records arrive. Pending writes are flushed first so the list includes every added
   * record; rejects when the store will not take them, and with `UnknownRecordError` for an
   * unknown `before`.
   */
  async list(filter: RecordFilter = {}): Promise<RequestRecord[]> {
    const limit = filter.limit ?? DEFAULT_LIST_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) throw new RangeError(`limit must be a whole number from 1 to ${MAX_LIST_LIMIT} (got ${limit})`);
    const sinceMs = filter.since === undefined ? undefined : sinceToEpochMs(filter.since);
    if (sinceMs === undefined && filter.since !== undefined) throw new RangeError(`since must be an ISO 8601 time or epoch milliseconds (got ${filter.since})`);
    await this.writer.flush();
    let query = this.db.selectFrom('requests').select(['record_json', 'origin']);
    if (filter.before !== undefined) {
      const before = filter.before;
      const cursor = await this.db.selectFrom('requests').select('created_ms').where('id', '=', before).executeTakeFirst();
      if (!cursor) throw new UnknownRecordError(before);
      // PostgreSQL hands a bigint back as text.
      const cursorMs = Number(cursor.created_ms);
      query = query.where((row) => row.or([row('created_ms', '<', cursorMs), row.and([row('created_ms', '=', cursorMs), row('id', '<', before)])]));
    }
    if (filter.route !== undefined) query = query.where('route', '=', filter.route);
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    if (filter.origin !== undefined) query = query.where('origin', '=', filter.origin);
    if (filter.keyName !== undefined) query = query.where('key_name', '=', filter.keyName);
    if (filter.teams !== undefined) {
      if (filter.teams.length === 0) return [];
      query = query.where('team_id', 'in', filter.teams);
    }
    if (filter.served !== undefined) query = query.where('served_connection', '=', filter.served.connection).where('served_model', '=', filter.served.model);
    if (filter.outcome !== undefined) query = query.where('outcome', '=', filter.outcome);
    if (filter.fallback !== undefined) query = query.where('fallback', '=', filter.fallback ? 1 : 0);
    if (sinceMs !== undefined) query = query.where('created_ms', '>=', sinceMs);
    const rows = await query.orderBy('created_ms', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return rows.map((row) => asStored(parseRecord(row.record_json), row.origin));
  }

  flush(): Promise<void> {
    return this.writer.flush();
  }

  /** Writes what is pending and stops the writer's timer; the database stays open. */
  close(): Promise<void> {
    return this.writer.close();
  }
}

/**
 * An ISO 8601 time (date first, so words like "yesterday" are refused rather than guessed) or
 * epoch milliseconds, as a number or digits; undefined when it is neither.
 */
export function sinceToEpochMs(since: string | number): number | undefined {
  if (typeof since === 'number') return Number.isFinite(since) ? since : undefined;
  if (/^\d+$/.test(since)) return Number(since);
  if (!/^\d{4}-\d{2}-\d{2}/.test(since)) return undefined;
  const parsed = Date.parse(since);
  return Number.isNaN(parsed) ? undefined : parsed;
}

function parseRecord(json: string): RequestRecord {
  return JSON.parse(json) as RequestRecord;
}

/**
 * A record stored by a build from before origins has none in its JSON: the column, migrated, says
 * it. One from before teams has no team: it was made when no key had one.
 */
function asStored(record: RequestRecord, origin: string): RequestRecord {
  if (record.origin !== undefined && record.team !== undefined) return record;
  return { ...record, origin: record.origin ?? (origin as RequestOrigin), team: record.team ?? null };
}
