/**
 * The store thread's work per request record (issue 44), measured by replaying captured records
 * as the gateway hands them to it: batches of JSON lines, each batch parsed and written by
 * `SqliteInserts.records` in one transaction to a file store migrated as `serve` migrates it.
 * Each round replays every record under fresh ids (nothing is skipped as already stored; the
 * rollup rows of their minutes are there from the round before, as under steady traffic).
 *
 *   npm run bench:store -- [--records FILE] [--rounds R]
 *   npm run bench:store -- --capture FILE [--requests N]
 *
 * `--capture` runs a gateway on mixed traffic and keeps the records it stored in FILE (see
 * store-capture.ts); the replay reads bench/fixtures/store-records.jsonl.gz, made that way, unless
 * told another file.
 *
 * Each figure is CPU µs per record, the median of the rounds: `parse` the JSON.parse of each line,
 * `rows` each record's facts worked out and its requests and attempts rows built, `rollups` the per-minute and breakdown rollups
 * computed, `sqlite` the rest of `records()` — its statements — found as its time less the two
 * before (it does that work itself).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import type { RequestRecord } from '../src/core/request-record.js';
import { breakdownRollups } from '../src/store/breakdown-rollups.js';
import { migrate } from '../src/store/migrate.js';
import { openStore } from '../src/store/open-database.js';
import { recordFacts } from '../src/store/record-facts.js';
import { SqliteInserts } from '../src/store/sqlite-inserts.js';
import { requestRollups } from '../src/store/stats-rollups.js';
import { attemptRows, requestRow } from '../src/store/table-rows.js';
import { boundedNumber } from './bounded-number.js';
import { captureRecords } from './store-capture.js';

/** `BatchWriter`'s default batch, which the record writer keeps. */
const BATCH_SIZE = 200;
const DEFAULT_RECORDS = join('bench', 'fixtures', 'store-records.jsonl.gz');

type Part = 'parse' | 'rows' | 'rollups' | 'sqlite';
const PARTS: readonly Part[] = ['parse', 'rows', 'rollups', 'sqlite'];

/** The captured lines under ids of their own for one round, in the gateway's batches (one string each, as sent to the store thread). */
function roundBatches(lines: readonly string[], round: number): string[] {
  const renamed = lines.map((line) => {
    const record = JSON.parse(line) as RequestRecord;
    return JSON.stringify({ ...record, id: `${record.id}_${round}` });
  });
  const batches: string[] = [];
  for (let start = 0; start < renamed.length; start += BATCH_SIZE) batches.push(renamed.slice(start, start + BATCH_SIZE).join('\n'));
  return batches;
}

/**
 * The process's CPU time, µs: the store thread's work is all on the CPU (WAL with synchronous
 * NORMAL syncs at checkpoints, not at commits), and CPU time, unlike the clock, does not count
 * what other processes on a shared machine take of it.
 */
function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** One round's CPU µs in each part. */
function replayRound(inserts: SqliteInserts, batches: readonly string[]): Record<Part, number> {
  const spent: Record<Part, number> = { parse: 0, rows: 0, rollups: 0, sqlite: 0 };
  for (const batch of batches) {
    const started = cpuMicros();
    const texts = batch.split('\n');
    const records = texts.map((text) => JSON.parse(text) as RequestRecord);
    const parsed = cpuMicros();
    const facts = records.map(recordFacts);
    for (const [index, each] of facts.entries()) {
      requestRow(each.record, texts[index], each);
      attemptRows(each.record);
    }
    const built = cpuMicros();
    breakdownRollups(facts, requestRollups(facts).latencies);
    const rolledUp = cpuMicros();
    inserts.records(records, texts);
    const written = cpuMicros();
    spent.parse += parsed - started;
    spent.rows += built - parsed;
    spent.rollups += rolledUp - built;
    spent.sqlite += written - rolledUp - (rolledUp - parsed);
  }
  return spent;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function replay(file: string, rounds: number): Promise<void> {
  const lines = gunzipSync(readFileSync(file)).toString('utf8').split('\n');
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-store-replay-'));
  const { db, sqlite } = openStore({ kind: 'sqlite', path: join(directory, 'switchyard.db') });
  try {
    await migrate(db);
    const inserts = new SqliteInserts(sqlite);
    const perRecord: Record<Part, number[]> = { parse: [], rows: [], rollups: [], sqlite: [] };
    // Round 0 warms the JIT and fills the rollup rows; it is not counted.
    for (let round = 0; round <= rounds; round++) {
      const spent = replayRound(inserts, roundBatches(lines, round));
      if (round === 0) continue;
      for (const part of PARTS) perRecord[part].push(spent[part] / lines.length);
    }
    const figures = PARTS.map((part) => [part, median(perRecord[part])] as const);
    console.log(`${lines.length} records from ${file}, batches of ${BATCH_SIZE}, median of ${rounds} rounds (CPU µs per record)`);
    for (const [part, us] of figures) console.log(`  ${part.padEnd(8)} ${us.toFixed(1).padStart(7)}`);
    console.log(`  ${'total'.padEnd(8)} ${figures.reduce((total, [, us]) => total + us, 0).toFixed(1).padStart(7)}`);
  } finally {
    await db.destroy();
    rmSync(directory, { recursive: true, force: true });
  }
}

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: DEFAULT_RECORDS },
    rounds: { type: 'string', default: '9' },
    capture: { type: 'string' },
    requests: { type: 'string', default: '1500' },
  },
});
if (values.capture !== undefined) {
  const stored = await captureRecords(values.capture, boundedNumber('--requests', values.requests, 1, 100_000, true));
  console.log(`${stored} records captured in ${values.capture}`);
} else {
  await replay(values.records, boundedNumber('--rounds', values.rounds, 1, 100, true));
}
