import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RequestRecord } from '../../../src/core/request-record.js';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { createKey, keysAuth, type CreatedKey } from '../../support/virtual-keys.js';
import { ADMIN_TOKEN, hello } from '../scenario-helpers.js';

let gateway: TestGateway;
let keyA: CreatedKey;
let keyB: CreatedKey;

beforeAll(async () => {
  gateway = await startGateway(`
${keysAuth(ADMIN_TOKEN)}
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  chat: { targets: [{ connection: mock-openai, model: paged-model }] }
`);
  keyA = await createKey(gateway.url, ADMIN_TOKEN, { name: 'team-a' });
  keyB = await createKey(gateway.url, ADMIN_TOKEN, { name: 'team-b' });
});
afterAll(() => gateway.close());

/** Sends `count` requests at once with the key; resolves to their request ids once every answer has ended. */
async function burst(key: CreatedKey, count: number): Promise<string[]> {
  const answers = await Promise.all(
    Array.from({ length: count }, async () => {
      const response = await postChat(gateway.url, { model: 'chat', messages: hello }, { authorization: `Bearer ${key.key}` });
      await response.text();
      expect(response.status).toBe(200);
      return response.headers.get('x-request-id')!;
    }),
  );
  return answers;
}

async function list(query: string): Promise<{ status: number; records: RequestRecord[]; error?: { param: string; message: string } }> {
  const response = await fetch(`${gateway.url}/admin/requests?${query}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, signal: AbortSignal.timeout(5_000) });
  const body = (await response.json()) as { data?: RequestRecord[]; error?: { param: string; message: string } };
  return { status: response.status, records: body.data ?? [], ...(body.error ? { error: body.error } : {}) };
}

it("?key= lists one key's records, and ?before= pages them newest first with no duplicate and no gap while more are written", async () => {
  // Sent at once, so several share a created millisecond and the id decides their order.
  const [earlierA, earlierB] = await Promise.all([burst(keyA, 12), burst(keyB, 4)]);
  expect(gateway.mock.attemptsFor('paged-model')).toHaveLength(16);

  const paged: RequestRecord[] = [];
  let before: string | undefined;
  const laterA: Promise<string[]>[] = [];
  const laterB: Promise<string[]>[] = [];
  for (let page = 0; page < 10; page++) {
    const { status, records } = await list(`key=team-a&limit=5${before === undefined ? '' : `&before=${before}`}`);
    expect(status).toBe(200);
    if (records.length === 0) break;
    paged.push(...records);
    before = records.at(-1)!.id;
    // Newer requests of the same key arrive, and are still being written, while the pages are read.
    laterA.push(burst(keyA, 3));
    laterB.push(burst(keyB, 1));
  }
  const laterAIds = (await Promise.all(laterA)).flat();
  const laterBIds = (await Promise.all(laterB)).flat();
  expect(laterAIds.length).toBeGreaterThan(0);

  const pagedIds = paged.map((record) => record.id);
  expect(pagedIds).toHaveLength(12);
  expect(new Set(pagedIds).size).toBe(12);
  expect(new Set(pagedIds)).toEqual(new Set(earlierA));
  expect(paged.every((record) => record.key_name === 'team-a' && record.origin === 'caller')).toBe(true);
  // Newest first across the pages: the order of one whole listing (created time, then id).
  const whole = (await list('key=team-a&limit=1000')).records.map((record) => record.id);
  expect(whole.filter((id) => earlierA.includes(id))).toEqual(pagedIds);
  for (const [index, record] of paged.entries()) {
    const next = paged[index + 1];
    if (next) expect(Date.parse(record.created_at) > Date.parse(next.created_at) || (record.created_at === next.created_at && record.id > next.id)).toBe(true);
  }
  // Everything the key sent, and nothing of the other key.
  expect(new Set(whole)).toEqual(new Set([...earlierA, ...laterAIds]));
  const teamB = (await list('key=team-b')).records.map((record) => record.id);
  expect(new Set(teamB)).toEqual(new Set([...earlierB, ...laterBIds]));

  // Paging from the oldest record is an empty page; from an id the store never held, a 400 naming `before`.
  expect((await list(`key=team-a&before=${whole.at(-1)!}`)).records).toEqual([]);
  const unknown = await list('before=req_never_sent');
  expect(unknown.status).toBe(400);
  expect(unknown.error).toMatchObject({ param: 'before' });
  expect(unknown.error!.message).toContain('before');
});
