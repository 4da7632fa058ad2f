import { afterEach, expect, it } from 'vitest';
import { redisForThisFile } from '../support/redis-server.js';
import { postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { createKey, keysAuth } from '../support/virtual-keys.js';

/**
 * A Redis that stops answering without closing its connections (SIGSTOP: what a Redis stuck in a
 * fork, behind a full network buffer or in a failover looks like) is the same outage as a dead one:
 * shared state is degraded, with the alert and the gauge, and callers are served on local state;
 * once it answers again, shared state comes back. The config sets connections, targets and Redis.
 */
const redis = redisForThisFile();
const ADMIN_TOKEN = 'hung-redis-admin-token';
let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

async function state(url: string): Promise<string> {
  const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5_000) });
  return ((await response.json()) as { state: string }).state;
}

async function eventually(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it.runIf(redis.available)('a frozen Redis is degraded with no request to notice it, keyed requests are served meanwhile, and it is shared again once thawed', async () => {
  const server = redis.server();
  gateway = await startGateway(`
state: { kind: redis, url: "${server.url}", key_prefix: "hung:" }
${keysAuth(ADMIN_TOKEN)}
connections:
  mock: { provider: mock }
routes:
  r: { targets: [{ connection: mock, model: m }] }
`);
  const alerts: { type: string; reason?: string }[] = [];
  const sent = gateway.app.alerts.send.bind(gateway.app.alerts);
  gateway.app.alerts.send = (alert) => {
    alerts.push(alert as { type: string; reason?: string });
    sent(alert);
  };
  const key = await createKey(gateway.url, ADMIN_TOKEN, { name: 'limited', limits: { rpm: 1_000 } });
  const ask = () => postChat(gateway!.url, { model: 'r', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${key.key}` });
  expect((await ask()).status).toBe(200);
  expect(await state(gateway.url)).toBe('shared');

  server.freeze();
  try {
    // Nobody sends a request: the link's own ping finds the hang.
    await eventually(async () => (await state(gateway!.url)) === 'degraded', 10_000, 'degraded while frozen');
    expect(alerts.find((alert) => alert.type === 'state_unavailable')?.reason).toContain('did not answer');
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/^switchyard_state_degraded 1$/m);
    for (let index = 0; index < 3; index++) expect((await ask()).status).toBe(200);
  } finally {
    server.thaw();
  }
  await eventually(async () => (await state(gateway!.url)) === 'shared', 10_000, 'shared once thawed');
  expect(alerts.map((alert) => alert.type)).toContain('state_restored');
  expect((await ask()).status).toBe(200);
}, 60_000);
