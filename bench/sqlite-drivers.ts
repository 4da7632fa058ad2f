import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate } from '../src/store/migrate.js';
import { openSqlite, openStore } from '../src/store/open-database.js';
import { attemptRows, requestRow } from '../src/store/table-rows.js';
import { expiredRecord } from './seed-expired-records.js';

/**
 * The store's write path on the two SQLite drivers a runtime may offer: better-sqlite3 (a native
 * addon compiled at install) and Node's built-in `node:sqlite` (22.13+, no install step). Each
 * round writes the same records (request row and attempt rows, one transaction per batch of 200,
 * the gateway's batch size) into a fresh WAL file with `synchronous = NORMAL`, as the store thread
 * does; the drivers alternate round by round so the machine's drift hits both alike.
 *
 * `npm run build && node dist/bench/sqlite-drivers.js [records-per-round] [rounds]`
 */

/** The part of `node:sqlite`'s API this bench uses (Node 20's types have none). */
interface BuiltinDatabase {
  exec(sql: string): void;
  prepare(sql: string): { run(parameters: Record<string, unknown>): unknown };
  close(): void;
}

const BATCH = 200;
const REQUEST_SQL = `INSERT INTO requests (id, created_at, created_ms, status, http_status, route, model_requested, key_name, origin, stream, latency_ms, record_json)
  VALUES (@id, @created_at, @created_ms, @status, @http_status, @route, @model_requested, @key_name, @origin, @stream, @latency_ms, @record_json) ON CONFLICT (id) DO NOTHING`;
const ATTEMPT_SQL = `INSERT INTO attempts (request_id, n, connection, provider, model, kind, http_status, latency_ms, committed)
  VALUES (@request_id, @n, @connection, @provider, @model, @kind, @http_status, @latency_ms, @committed) ON CONFLICT (request_id, n) DO NOTHING`;

type Writer = (rows: { request: Record<string, unknown>; attempts: Record<string, unknown>[] }[]) => void;

interface Driver {
  name: string;
  open(path: string): { write: Writer; close(): void };
}

const betterSqlite3: Driver = {
  name: 'better-sqlite3',
  open(path) {
    const database = openSqlite(path);
    const insertRequest = database.prepare(REQUEST_SQL);
    const insertAttempt = database.prepare(ATTEMPT_SQL);
    const write = database.transaction((rows: Parameters<Writer>[0]) => {
      for (const row of rows) {
        insertRequest.run(row.request);
        for (const attempt of row.attempts) insertAttempt.run(attempt);
      }
    });
    return { write, close: () => database.close() };
  },
};

function builtinDriver(DatabaseSync: new (path: string) => BuiltinDatabase): Driver {
  return {
    name: 'node:sqlite',
    open(path) {
      const database = new DatabaseSync(path);
      database.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
      const insertRequest = database.prepare(REQUEST_SQL);
      const insertAttempt = database.prepare(ATTEMPT_SQL);
      const write: Writer = (rows) => {
        database.exec('BEGIN');
        try {
          for (const row of rows) {
            insertRequest.run(row.request);
            for (const attempt of row.attempts) insertAttempt.run(attempt);
          }
          database.exec('COMMIT');
        } catch (error) {
          database.exec('ROLLBACK');
          throw error;
        }
      };
      return { write, close: () => database.close() };
    },
  };
}

/** `node:sqlite` where this runtime has it without a flag. */
function loadBuiltin(): Driver | undefined {
  try {
    const { DatabaseSync } = createRequire(import.meta.url)('node:sqlite') as { DatabaseSync: new (path: string) => BuiltinDatabase };
    return builtinDriver(DatabaseSync);
  } catch {
    return undefined;
  }
}

async function freshStore(directory: string, name: string): Promise<string> {
  const path = join(directory, `${name}.db`);
  const { db } = openStore({ kind: 'sqlite', path });
  await migrate(db);
  await db.destroy();
  return path;
}

async function round(driver: Driver, directory: string, roundIndex: number, count: number): Promise<{ recordsPerSecond: number; cpuMicrosPerRecord: number }> {
  const path = await freshStore(directory, `${driver.name.replace(':', '-')}-${roundIndex}`);
  const createdMs = Date.now();
  const rows = Array.from({ length: count }, (_, index) => {
    const record = expiredRecord(index, createdMs + index);
    return { request: requestRow(record) as Record<string, unknown>, attempts: attemptRows(record) as Record<string, unknown>[] };
  });
  const store = driver.open(path);
  const cpuBefore = process.cpuUsage();
  const startedMs = performance.now();
  for (let start = 0; start < rows.length; start += BATCH) store.write(rows.slice(start, start + BATCH));
  const wallMs = performance.now() - startedMs;
  const cpu = process.cpuUsage(cpuBefore);
  store.close();
  return { recordsPerSecond: (count / wallMs) * 1000, cpuMicrosPerRecord: (cpu.user + cpu.system) / count };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const count = Number(process.argv[2] ?? 20_000);
const rounds = Number(process.argv[3] ?? 5);
const drivers = [betterSqlite3, loadBuiltin()].filter((driver): driver is Driver => driver !== undefined);
if (drivers.length === 1) console.warn(`node ${process.version} has no node:sqlite: measuring better-sqlite3 alone`);
const directory = mkdtempSync(join(tmpdir(), 'switchyard-sqlite-drivers-'));
try {
  const results = new Map(drivers.map((driver) => [driver.name, [] as Awaited<ReturnType<typeof round>>[]]));
  for (let index = 0; index < rounds + 1; index++) {
    for (const driver of index % 2 === 0 ? drivers : [...drivers].reverse()) {
      const result = await round(driver, directory, index, count);
      // The first round of each driver warms it up and is not counted.
      if (index > 0) results.get(driver.name)!.push(result);
    }
  }
  console.log(`node ${process.version}, ${count} records a round in batches of ${BATCH}, median of ${rounds} rounds`);
  for (const [name, measured] of results) {
    const perSecond = median(measured.map((result) => result.recordsPerSecond));
    const cpu = median(measured.map((result) => result.cpuMicrosPerRecord));
    console.log(`${name.padEnd(15)} ${Math.round(perSecond).toString().padStart(8)} records/s   ${cpu.toFixed(1).padStart(6)} µs CPU a record`);
  }
} finally {
  rmSync(directory, { recursive: true, force: true });
}
