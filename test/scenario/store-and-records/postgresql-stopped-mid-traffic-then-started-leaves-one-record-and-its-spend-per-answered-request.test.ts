import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestGateway } from '../../support/start-gateway.js';
import { postgresForThisFile } from '../../support/postgres-server.js';
import { createKey } from '../../support/virtual-keys.js';
import { askPaid, queryPostgres, startGatewayOnPostgres } from '../postgres-helpers.js';
import { ADMIN_TOKEN } from '../scenario-helpers.js';

const { available, server } = postgresForThisFile();
const spillDirectory = mkdtempSync(join(tmpdir(), 'switchyard-pg-spill-'));
let gateway: TestGateway | undefined;
let url: string;

beforeAll(async () => {
  if (!available) return;
  url = await server().createDatabase('outage');
  gateway = await startGatewayOnPostgres(url, spillDirectory);
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  rmSync(spillDirectory, { recursive: true, force: true });
});

interface Answer {
  id: string;
  status: number;
  code?: string;
}

/** Requests one after another until told to stop: the traffic that flows through the outage. */
function keepAsking(key: string): { stop(): Promise<Answer[]> } {
  const answers: Answer[] = [];
  let stopping = false;
  const loop = (async () => {
    while (!stopping) {
      const response = await askPaid(gateway!.url, key);
      answers.push({ id: response.headers.get('x-request-id')!, status: response.status });
      await response.arrayBuffer();
    }
  })();
  return {
    async stop() {
      stopping = true;
      await loop;
      return answers;
    },
  };
}

async function ask(key: string): Promise<Answer> {
  const response = await askPaid(gateway!.url, key);
  const body = (await response.json()) as { error?: { code?: string } };
  return { id: response.headers.get('x-request-id')!, status: response.status, ...(body.error?.code ? { code: body.error.code } : {}) };
}

it.skipIf(!available)(
  'every request answered before, during and after the outage has exactly one record and its spend row once PostgreSQL is back; meanwhile a known key works and an unseen one gets 503',
  async () => {
    const known = await createKey(gateway!.url, ADMIN_TOKEN, { name: 'known' });
    const unseen = await createKey(gateway!.url, ADMIN_TOKEN, { name: 'unseen' });
    const single: Answer[] = [await ask(known.key)];
    expect(single[0]!.status).toBe(200);

    const traffic = keepAsking(known.key);
    await server().stop();
    // During the outage: the known key is served from the cache; a key never seen cannot be checked.
    const duringKnown = await ask(known.key);
    const duringUnseen = await ask(unseen.key);
    expect(duringKnown.status).toBe(200);
    expect(duringUnseen).toMatchObject({ status: 503, code: 'gateway_unavailable' });
    single.push(duringKnown, duringUnseen);
    // More traffic through the outage, so the writers fail and back off more than once.
    for (let index = 0; index < 20; index++) single.push(await ask(known.key));
    // What the store refused waits in the spill directory, not only in memory.
    await gateway!.app.records.flush().catch(() => undefined);
    expect(readdirSync(spillDirectory).some((name) => name.startsWith('switchyard.spill-'))).toBe(true);

    await server().start();
    const restartedAtMs = Date.now();
    const after = await ask(known.key);
    expect(after.status).toBe(200);
    single.push(after);
    const answers = [...single, ...(await traffic.stop())];
    const served = answers.filter((answer) => answer.status === 200);
    expect(answers.filter((answer) => answer.status !== 200)).toEqual([duringUnseen]);
    expect(served.length).toBeGreaterThan(3);
    // The provider generated once per served request, outage or not.
    expect(gateway!.mock.attemptsFor('gpt-paid')).toHaveLength(served.length);

    // Replayed by the gateway on its own (no flush asked for), within 5 s of PostgreSQL's return.
    const ids = answers.map((answer) => answer.id);
    const servedIds = new Set(served.map((answer) => answer.id));
    const expected = [...ids].sort().map((id) => ({ id, records: 1, spend: servedIds.has(id) ? 1 : 0 }));
    let counts: { id: string; records: number; spend: number }[] = [];
    while (Date.now() - restartedAtMs < 5_000) {
      counts = await queryPostgres(
        url,
        `SELECT id, (SELECT count(*) FROM requests r WHERE r.id = ids.id)::int AS records, (SELECT count(*) FROM spend s WHERE s.request_id = ids.id)::int AS spend
         FROM unnest($1::text[]) AS ids(id) ORDER BY id`,
        [ids],
      );
      // Records and spend rows have writers of their own, each replaying on its own timer.
      if (counts.every((count) => count.records === 1 && count.spend === (servedIds.has(count.id) ? 1 : 0))) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(counts).toEqual(expected);
    const total = await queryPostgres<{ records: number; spend: number }>(url, 'SELECT (SELECT count(*) FROM requests)::int AS records, (SELECT count(*) FROM spend)::int AS spend');
    expect(total).toEqual([{ records: answers.length, spend: served.length }]);
    expect(existsSync(join(spillDirectory, 'switchyard.spill-records.jsonl'))).toBe(false);
    expect(existsSync(join(spillDirectory, 'switchyard.spill-spend.jsonl'))).toBe(false);
  },
  60_000,
);
