import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../scenario/scenario-helpers.js';
import { redisForThisFile } from '../support/redis-server.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { createKey, keysAuth } from '../support/virtual-keys.js';
import { ADMIN_TOKEN, adminCall, chatWith } from './admin-calls.js';

const redis = redisForThisFile();
let directory: string;
let gateways: TestGateway[] = [];

// Two replicas, one Redis and one store: each caches the keys it has served, so only the message
// through Redis (not the 30 s refresh, far beyond the wait below) can tell B of a change made on A.
beforeAll(async () => {
  if (!redis.available) return;
  directory = mkdtempSync(join(tmpdir(), 'switchyard-key-changes-'));
  const config = `
state: { kind: redis, url: "${redis.server().url}", key_prefix: "key-changes:" }
store: { kind: sqlite, path: "${join(directory, 'shared.db')}" }
${keysAuth(ADMIN_TOKEN)}
connections:
  mock: { provider: mock }
routes:
  r: { targets: [{ connection: mock, model: m }] }
  other: { targets: [{ connection: mock, model: o }] }
`;
  gateways = [await startGateway(config)];
  gateways.push(await startGateway(config));
}, 60_000);
afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
  if (directory) rmSync(directory, { recursive: true, force: true });
});

const [a, b] = [() => gateways[0]!, () => gateways[1]!];

describe.runIf(redis.available)('key changes across two replicas on one Redis', () => {
  it('routes narrowed on A are refused on B, which had the key cached', async () => {
    const { id, key } = await createKey(a().url, ADMIN_TOKEN, { name: 'narrowed' });
    expect((await chatWith(b().url, key, 'r')).status).toBe(200);
    expect((await adminCall(a().url, 'PATCH', `/admin/keys/${id}`, { body: { routes: ['other'] } })).status).toBe(200);
    await eventually(async () => (await chatWith(b().url, key, 'r')).status === 403, 10_000, 'replica B refusing the route the change took away');
    expect((await chatWith(b().url, key, 'other')).status).toBe(200);
  });

  it('a secret rotated away on A with no overlap is refused on B as replaced, and the new one is served there', async () => {
    const { id, key } = await createKey(a().url, ADMIN_TOKEN, { name: 'rotated' });
    expect((await chatWith(b().url, key)).status).toBe(200);
    const rotated = await adminCall(a().url, 'POST', `/admin/keys/${id}/rotate`, { body: { overlap_s: 0 } });
    expect(rotated.status).toBe(201);
    await eventually(async () => (await chatWith(b().url, key)).status === 401, 10_000, 'replica B refusing the replaced secret');
    const refused = await chatWith(b().url, key);
    expect(refused.body.error?.message).toContain('replaced by a rotation');
    expect((await chatWith(b().url, rotated.body.key as string)).status).toBe(200);
  });
});
