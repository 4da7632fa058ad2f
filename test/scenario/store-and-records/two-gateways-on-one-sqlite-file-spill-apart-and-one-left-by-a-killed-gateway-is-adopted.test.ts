import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { startCli, type CliProcess } from '../../support/cli-process.js';
import { spillFileNames } from '../../support/spill-files.js';
import { postChat } from '../../support/start-gateway.js';
import { eventually, hello, metricsText, metricValue } from '../scenario-helpers.js';

/**
 * Two gateways started in one directory with a config that names only a connection and a route:
 * both use the default store, `./switchyard.db`, and spill beside it.
 */
const directory = mkdtempSync(join(tmpdir(), 'switchyard-one-sqlite-'));
const storePath = join(directory, 'switchyard.db');
const started: CliProcess[] = [];
afterAll(async () => {
  await Promise.all(started.map((gateway) => gateway.stop()));
  rmSync(directory, { recursive: true, force: true });
});

writeFileSync(
  join(directory, 'config.yaml'),
  `
auth: { mode: none }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  paid:
    targets: [{ connection: mock-openai, model: gpt-paid, price: { input_per_mtok: 1000, output_per_mtok: 1000 } }]
`,
);

const LISTENING = /Switchyard listening on (http:\/\/127\.0\.0\.1:\d+)/;
/** Bounds for a busy 2-core machine; a healthy run never waits for them. */
const STORED_BOUND_MS = 30_000;

async function serve(): Promise<{ process: CliProcess; url: string; spillId: string }> {
  const gateway = startCli(['serve', '--config', 'config.yaml', '--port', '0'], { cwd: directory, env: { LOG_FORMAT: 'json' } });
  started.push(gateway);
  const [, url] = await gateway.waitFor(LISTENING);
  return { process: gateway, url: url!, spillId: /"spill_id":"([^"]+)"/.exec(gateway.output())![1]! };
}

async function ask(url: string): Promise<string> {
  const response = await postChat(url, { model: 'paid', messages: hello });
  expect(response.status).toBe(200);
  await response.text();
  return response.headers.get('x-request-id')!;
}

async function spillOf(url: string): Promise<{ records: number; spend: number; audit: number }> {
  return ((await (await fetch(`${url}/readyz`)).json()) as { spill: { records: number; spend: number; audit: number } }).spill;
}

/** How many of `ids` have a record, and how many a spend row, in the shared SQLite file. */
function storedOf(ids: readonly string[]): { records: number; spend: number } {
  const store = new Database(storePath, { readonly: true, timeout: 5_000 });
  try {
    const count = (table: string, column: string) =>
      (store.prepare(`SELECT count(DISTINCT ${column}) AS n FROM ${table} WHERE ${column} IN (SELECT value FROM json_each(?))`).get(JSON.stringify(ids)) as { n: number }).n;
    return { records: count('requests', 'id'), spend: count('spend', 'request_id') };
  } finally {
    store.close();
  }
}

it('two gateways on one SQLite file spill into files of their own while it is locked; one killed meanwhile leaves its files to the other, which replays them once', async () => {
  const first = await serve();
  const second = await serve();
  const before = [await ask(first.url), await ask(second.url)];
  await eventually(() => storedOf(before).records === 2 && storedOf(before).spend === 2, STORED_BOUND_MS, 'both first answers stored');

  // Another process holds the write lock: every write of both gateways fails and is spilled.
  const lock = new Database(storePath);
  lock.exec('BEGIN EXCLUSIVE');
  lock.prepare(`INSERT INTO virtual_keys (id, name, key_hash, key_prefix, created_at) VALUES ('key_lock', 'lock', 'lock', 'lock', 'now')`).run();
  const during = { first: [] as string[], second: [] as string[] };
  try {
    for (let index = 0; index < 10; index++) {
      during.first.push(await ask(first.url));
      during.second.push(await ask(second.url));
    }
    await eventually(async () => {
      const [firstSpill, secondSpill] = [await spillOf(first.url), await spillOf(second.url)];
      return firstSpill.records === 10 && firstSpill.spend === 10 && secondSpill.records === 10 && secondSpill.spend === 10;
    }, STORED_BOUND_MS, "each gateway's ten answers in its own spill files");
    const names = spillFileNames(directory, 'switchyard.db');
    expect(names.filter((name) => name.includes(first.spillId)).length).toBeGreaterThan(0);
    expect(names.filter((name) => name.includes(second.spillId)).length).toBeGreaterThan(0);
    expect(names.every((name) => name.includes(first.spillId) || name.includes(second.spillId))).toBe(true);

    const exited = new Promise((resolve) => second.process.child.once('exit', resolve));
    second.process.child.kill('SIGKILL');
    await exited;
  } finally {
    lock.exec('ROLLBACK');
    lock.close();
  }

  const answered = [...before, ...during.first, ...during.second];
  await eventually(() => {
    const stored = storedOf(answered);
    return stored.records === answered.length && stored.spend === answered.length;
  }, STORED_BOUND_MS, 'every answer stored once the lock is gone');
  const adoptions = first.process
    .output()
    .split('\n')
    .filter((line) => line.includes('"adopted":'))
    .map((line) => JSON.parse(line) as { adopted: string[]; records: number; spend: number });
  expect(adoptions.map(({ adopted, records, spend }) => ({ adopted, records, spend }))).toEqual([{ adopted: [second.spillId], records: 10, spend: 10 }]);
  const metrics = await metricsText(first.url);
  expect(['records', 'spend'].map((kind) => metricValue(metrics, 'switchyard_spill_adopted_total', { kind }))).toEqual([10, 10]);
  expect(await spillOf(first.url)).toEqual({ records: 0, spend: 0, audit: 0 });

  expect(await first.process.stop()).toBe(0);
  expect(spillFileNames(directory, 'switchyard.db')).toEqual([]);
});
