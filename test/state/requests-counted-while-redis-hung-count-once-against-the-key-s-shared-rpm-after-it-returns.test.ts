import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { redisForThisFile } from '../support/redis-server.js';
import { postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { createKey, keysAuth } from '../support/virtual-keys.js';
import { eventually } from '../scenario/scenario-helpers.js';

/**
 * Two replicas on one Redis and one store. While Redis hangs each admits a key's requests against
 * its own copy of the key's rpm; once Redis answers again, what was admitted meanwhile counts
 * against the fleet's rpm for the rest of its minute — once, however the merge went.
 */
const redis = redisForThisFile();
const ADMIN_TOKEN = 'rpm-merge-admin-token';
let directory: string;
let gateways: TestGateway[] = [];

beforeAll(async () => {
  if (!redis.available) return;
  directory = mkdtempSync(join(tmpdir(), 'switchyard-rpm-merge-'));
  const config = `
state: { kind: redis, url: "${redis.server().url}", key_prefix: "rpm-merge:" }
store: { kind: sqlite, path: "${join(directory, 'shared.db')}" }
${keysAuth(ADMIN_TOKEN)}
connections:
  mock: { provider: mock }
routes:
  r: { targets: [{ connection: mock, model: m }] }
`;
  gateways = [await startGateway(config)];
  gateways.push(await startGateway(config));
}, 30_000);
afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
  if (directory) rmSync(directory, { recursive: true, force: true });
});

async function state(url: string): Promise<string> {
  const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5_000) });
  return ((await response.json()) as { state: string }).state;
}

it.runIf(redis.available)('a request admitted on one replica while Redis hung counts once against the key’s shared rpm once Redis answers', async () => {
  const [one, two] = gateways as [TestGateway, TestGateway];
  // rpm 2, one token back every 30 s: the whole test fits in the minute.
  const { key } = await createKey(one.url, ADMIN_TOKEN, { name: 'rpm-2', limits: { rpm: 2 } });
  const ask = (gateway: TestGateway) => postChat(gateway.url, { model: 'r', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${key}` });

  redis.server().freeze();
  try {
    // Both find the hang on their own, so no request of the test is left waiting on Redis.
    await eventually(async () => (await state(one.url)) === 'degraded' && (await state(two.url)) === 'degraded', 10_000, 'both replicas degraded');
    expect((await ask(one)).status).toBe(200);
  } finally {
    redis.server().thaw();
  }
  await eventually(async () => (await state(one.url)) === 'shared' && (await state(two.url)) === 'shared', 10_000, 'both replicas shared again');

  // The fleet's minute holds two: one was taken during the outage, so the other replica has one left.
  expect((await ask(two)).status).toBe(200);
  const refused = await ask(two);
  expect(refused.status).toBe(429);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
}, 60_000);
