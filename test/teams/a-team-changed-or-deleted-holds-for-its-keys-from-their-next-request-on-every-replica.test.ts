/**
 * A team's change reaches its keys' next request on the replica that made it, and the others' as
 * soon as Redis's message reaches them (as a key's revocation does), not at the key cache's next
 * refresh.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminCall, ADMIN_TOKEN, createTeam, createTeamKey } from '../support/admin-calls.js';
import { redisForThisFile } from '../support/redis-server.js';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { keysAuth } from '../support/virtual-keys.js';

const redis = redisForThisFile();
let directory: string;
let replicas: TestGateway[] = [];

beforeAll(async () => {
  if (!redis.available) return;
  directory = mkdtempSync(join(tmpdir(), 'switchyard-team-change-'));
  const config = `
state: { kind: redis, url: "${redis.server().url}", key_prefix: "team-change:" }
store: { kind: sqlite, path: "${join(directory, 'shared.db')}" }
${keysAuth(ADMIN_TOKEN)}
${MOCK_CONNECTIONS}
routes:
  chat: { targets: [{ connection: mock-openai, model: gpt-chat }] }
  search: { targets: [{ connection: mock-openai, model: gpt-search }] }
`;
  replicas = [await startGateway(config), await startGateway(config)];
}, 60_000);
afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.close()));
  if (directory) rmSync(directory, { recursive: true, force: true });
});

const ask = async (replica: TestGateway, key: string, model: string) => (await postChat(replica.url, { model, messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${key}` })).status;

it.skipIf(!redis.available)("a team's new route bound and rpm hold from its keys' next request on both replicas, and the team goes once its key is revoked", async () => {
  const [a, b] = replicas as [TestGateway, TestGateway];
  const team = await createTeam(a.url, { name: 'movers' });
  const { key } = await createTeamKey(a.url, { name: 'mover', team });
  // Both replicas have read the key and its team (no bound yet).
  for (const replica of [a, b]) expect(await ask(replica, key, 'search')).toBe(200);

  // The replica that made the change holds it from the next request; the other as soon as Redis's
  // message has reached it (its pub/sub delivery: well under a millisecond at rest, longer under a
  // loaded CI machine's scheduling).
  const onOther = { timeout: 5_000, interval: 20 };
  expect((await adminCall(a.url, 'PATCH', `/admin/teams/${team}`, { body: { routes: ['chat'] } })).status).toBe(200);
  expect(await ask(a, key, 'search')).toBe(403);
  await expect.poll(() => ask(b, key, 'search'), onOther).toBe(403);
  for (const replica of [a, b]) expect(await ask(replica, key, 'chat')).toBe(200);

  expect((await adminCall(b.url, 'PATCH', `/admin/teams/${team}`, { body: { routes: null, limits: { rpm: 1 } } })).status).toBe(200);
  // The team's new minute: one request, on whichever replica (a refusal for the old bound takes none of it); the next is refused on the other.
  await expect.poll(() => ask(a, key, 'search'), onOther).toBe(200);
  expect(await ask(b, key, 'search')).toBe(429);

  expect((await adminCall(a.url, 'DELETE', `/admin/keys/${(await adminCall(a.url, 'GET', '/admin/keys')).body.data!.find((listed) => listed.name === 'mover')!.id}`)).status).toBe(200);
  expect((await adminCall(a.url, 'DELETE', `/admin/teams/${team}`)).status).toBe(200);
  expect((await adminCall(b.url, 'GET', `/admin/teams/${team}`)).status).toBe(404);
});
