import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import type { SpendRow } from '../../../src/core/spend-row.js';
import type { RequestRecord } from '../../../src/core/request-record.js';
import { spilledItems, spillFileNames } from '../../support/spill-files.js';
import { postChat } from '../../support/start-gateway.js';
import { hello } from '../scenario-helpers.js';

/**
 * The crash window docs/operations.md promises during an outage: one flush interval (250 ms),
 * plus as much again for timers running late on a busy machine.
 */
const CRASH_WINDOW_MS = 500;
/** How long traffic runs against the locked store before the kill: well past the window. */
const OUTAGE_TRAFFIC_MS = 2_500;

const directory = mkdtempSync(join(tmpdir(), 'switchyard-crash-window-'));
const storePath = join(directory, 'switchyard.db');
const configFile = join(directory, 'config.yaml');
let child: ChildProcess | undefined;
afterAll(() => {
  child?.kill('SIGKILL');
  rmSync(directory, { recursive: true, force: true });
});

writeFileSync(
  configFile,
  `
store: { kind: sqlite, path: "${storePath}" }
auth: { mode: none }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  paid:
    targets: [{ connection: mock-openai, model: gpt-paid, price: { input_per_mtok: 1000, output_per_mtok: 1000 } }]
`,
);

/** `switchyard serve` in a child process of its own; resolves with its URL once it listens. */
async function serve(): Promise<{ process: ChildProcess; url: string }> {
  const cli = join(process.cwd(), 'dist', 'src', 'cli', 'main.js');
  const started = spawn(process.execPath, [cli, 'serve', '--config', configFile, '--port', '0', '--host', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'inherit'] });
  child = started;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('switchyard serve did not start listening within 15 s')), 15_000);
    started.once('exit', (code) => reject(new Error(`switchyard serve exited early (code ${code})`)));
    createInterface({ input: started.stdout! }).on('line', (line) => {
      const url = (JSON.parse(line) as { url?: string }).url;
      if (url === undefined) return;
      clearTimeout(timer);
      resolve(url);
    });
  });
  return { process: started, url };
}

it('killed with SIGKILL while the store refuses writes, the gateway loses only what ended within the crash window: the rest is in the spill files', async () => {
  const gateway = await serve();
  expect((await postChat(gateway.url, { model: 'paid', messages: hello })).status).toBe(200);

  const lock = new Database(storePath);
  lock.exec('BEGIN EXCLUSIVE');
  lock.prepare(`INSERT INTO virtual_keys (id, name, key_hash, key_prefix, created_at) VALUES ('key_lock', 'lock', 'lock', 'lock', 'now')`).run();
  /** Request id → when its response had ended (epoch ms). */
  const endedAtMs = new Map<string, number>();
  try {
    const trafficUntilMs = Date.now() + OUTAGE_TRAFFIC_MS;
    while (Date.now() < trafficUntilMs && endedAtMs.size < 2_000) {
      const response = await postChat(gateway.url, { model: 'paid', messages: hello });
      expect(response.status).toBe(200);
      await response.text();
      endedAtMs.set(response.headers.get('x-request-id')!, Date.now());
    }
    const exited = new Promise((resolve) => gateway.process.once('exit', resolve));
    gateway.process.kill('SIGKILL');
    const killedAtMs = Date.now();
    await exited;

    const spilledRecords = new Set(spilledItems<RequestRecord>(directory, 'switchyard.db', 'records').map((record) => record.id));
    const spilledSpend = new Set(spilledItems<SpendRow>(directory, 'switchyard.db', 'spend').map((row) => row.requestId));
    const lostRecords = [...endedAtMs].filter(([id]) => !spilledRecords.has(id));
    const lostSpend = [...endedAtMs].filter(([id]) => !spilledSpend.has(id));
    // Every request that ended before the window is safe on disk, its record and its spend row.
    expect(lostRecords.filter(([, endedMs]) => endedMs < killedAtMs - CRASH_WINDOW_MS)).toEqual([]);
    expect(lostSpend.filter(([, endedMs]) => endedMs < killedAtMs - CRASH_WINDOW_MS)).toEqual([]);
    expect(endedAtMs.size - lostRecords.length).toBeGreaterThan(0);
  } finally {
    lock.exec('ROLLBACK');
    lock.close();
  }

  // The next start adopts the killed process's spill files (its lock is free), replays them into
  // the store and removes them; a graceful stop (SIGTERM) flushes what is left of the replay.
  const spilled = spilledItems<RequestRecord>(directory, 'switchyard.db', 'records').map((record) => record.id);
  const restarted = await serve();
  const stopped = new Promise((resolve) => restarted.process.once('exit', resolve));
  restarted.process.kill('SIGTERM');
  await stopped;
  expect(spillFileNames(directory, 'switchyard.db')).toEqual([]);
  const store = new Database(storePath, { readonly: true });
  try {
    const stored = new Set(store.prepare('SELECT id FROM requests').pluck().all() as string[]);
    expect(spilled.filter((id) => !stored.has(id))).toEqual([]);
  } finally {
    store.close();
  }
});
