import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { createKey, keysAuth } from '../../support/virtual-keys.js';
import { ADMIN_TOKEN, hello } from '../scenario-helpers.js';

const directory = mkdtempSync(join(tmpdir(), 'switchyard-locked-store-'));
const storePath = join(directory, 'switchyard.db');
/**
 * A store call gives up after a bound of about a second; a request that waited on the lock instead
 * would wait for the caller's whole deadline. The bound here tells the two apart with room for a
 * loaded machine: how close to a second it is belongs to a bench, not to a test.
 */
const STORE_WAIT_BOUND_MS = 10_000;
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
store: { kind: sqlite, path: "${storePath}" }
${keysAuth(ADMIN_TOKEN)}
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  paid:
    targets: [{ connection: mock-openai, model: gpt-paid, price: { input_per_mtok: 1000, output_per_mtok: 1000 } }]
`);
});
afterAll(async () => {
  await gateway.close();
  rmSync(directory, { recursive: true, force: true });
});

const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };

function adminCall(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${gateway.url}${path}`, { ...init, headers: admin, signal: AbortSignal.timeout(15_000) });
}

/** The response and how long it took, in ms. */
async function timed(call: Promise<Response>): Promise<{ response: Response; ms: number; body: string }> {
  const startedMs = performance.now();
  const response = await call;
  const body = await response.text();
  return { response, ms: performance.now() - startedMs, body };
}

const ask = (key: string) => postChat(gateway.url, { model: 'paid', messages: hello }, { authorization: `Bearer ${key}` });

it('while another connection holds the store write-locked, nothing waits on the lock: the serving thread stays free, and what needs a write is a fast 503', async () => {
  const known = await createKey(gateway.url, ADMIN_TOKEN, { name: 'known' });
  const unseen = await createKey(gateway.url, ADMIN_TOKEN, { name: 'unseen' });
  expect((await ask(known.key)).status).toBe(200);
  await gateway.app.records.flush();

  const lock = new Database(storePath);
  lock.exec('BEGIN EXCLUSIVE');
  lock.prepare(`INSERT INTO virtual_keys (id, name, key_hash, key_prefix, created_at) VALUES ('key_lock', 'lock', 'lock', 'lock', 'now')`).run();
  try {
    const forged = `sk-sy-${'f'.repeat(43)}`;
    // A forged key's lookup, and while it runs, the health check and a known key's request.
    const [forgedAnswer, health, knownAnswer] = await Promise.all([timed(ask(forged)), timed(fetch(`${gateway.url}/healthz`)), timed(ask(known.key))]);
    // Answered while the lock is still held (it is released only below): nothing waited for it.
    // How fast they are under load is not a test's to say; the 503s' bound is (STORE_WAIT_BOUND_MS).
    expect(health.response.status).toBe(200);
    expect(knownAnswer.response.status).toBe(200);
    // WAL keeps reads going under another connection's write lock: the store can say the key is
    // unknown, so the caller hears that at once (an unreachable store would be a 503).
    expect(forgedAnswer.ms).toBeLessThan(STORE_WAIT_BOUND_MS);
    expect(forgedAnswer.response.status).toBe(401);
    const unseenAnswer = await timed(ask(unseen.key));
    expect(unseenAnswer.response.status).toBe(200);

    const created = await timed(adminCall('/admin/keys', { method: 'POST', body: JSON.stringify({ name: 'during-lock' }) }));
    expect(created.response.status).toBe(503);
    expect(JSON.parse(created.body)).toMatchObject({ error: { code: 'gateway_unavailable' } });
    expect(created.response.headers.get('retry-after')).not.toBeNull();
    expect(created.ms).toBeLessThan(STORE_WAIT_BOUND_MS);

    // Both must first write what is pending (records, spend rows), which the lock refuses.
    for (const path of ['/admin/requests', `/admin/keys/${known.id}/spend`]) {
      const answer = await timed(adminCall(path));
      expect(answer.response.status, path).toBe(503);
      expect(JSON.parse(answer.body), path).toMatchObject({ error: { code: 'gateway_unavailable' } });
      expect(answer.ms, path).toBeLessThan(STORE_WAIT_BOUND_MS);
    }
    // Meanwhile the health check never waited.
    const healthAfter = await timed(fetch(`${gateway.url}/healthz`));
    expect(healthAfter.response.status).toBe(200);
  } finally {
    lock.exec('ROLLBACK');
    lock.close();
  }

  // The lock is gone: the store answers again, and what was refused did not land behind the caller's back.
  await gateway.app.records.flush();
  const keys = (await (await adminCall('/admin/keys')).json()) as { data: { name: string }[] };
  expect(keys.data.map((key) => key.name)).toEqual(['known', 'unseen']);
  const listed = (await (await adminCall('/admin/requests?limit=1000')).json()) as { data: { key_name: string | null; http_status: number }[] };
  expect(listed.data.filter((record) => record.key_name === 'known' && record.http_status === 200)).toHaveLength(2);
  expect(listed.data.filter((record) => record.key_name === 'unseen')).toHaveLength(1);
  const spend = await adminCall(`/admin/keys/${known.id}/spend`);
  expect(spend.status).toBe(200);
  expect(((await spend.json()) as { usd: number }).usd).toBeGreaterThan(0);
  // The provider was asked only for the requests with a valid key.
  expect(gateway.mock.attempts).toHaveLength(3);
  // Everything spilled during the lock is replayed, and no spill file is left behind.
  expect(existsSync(`${storePath}.spill-records.jsonl`)).toBe(false);
  expect(existsSync(`${storePath}.spill-spend.jsonl`)).toBe(false);
});
