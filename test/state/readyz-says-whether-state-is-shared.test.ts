import { afterEach, describe, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { redisForThisFile } from '../support/redis-server.js';

const redis = redisForThisFile();

const ROUTES = `
connections:
  mock: { provider: mock }
routes:
  r: { targets: [{ connection: mock, model: m }] }
`;

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

async function readiness(url: string): Promise<{ status: number; body: { status: string; state: string } }> {
  const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5_000) });
  return { status: response.status, body: (await response.json()) as { status: string; state: string } };
}

async function degradedGauge(url: string): Promise<string | undefined> {
  const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
  return /^switchyard_state_degraded (\S+)$/m.exec(text)?.[1];
}

/** Polls (bounded) until `check` holds. */
async function eventually(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('/readyz', () => {
  it('says memory for state kept in this process', async () => {
    gateway = await startGateway(ROUTES);
    expect(await readiness(gateway.url)).toEqual({ status: 200, body: expect.objectContaining({ status: 'ready', state: 'memory' }) });
  });

  it.runIf(redis.available)('says shared with Redis up, degraded (still 200) while it is down, and shared again when it returns', async () => {
    const server = redis.server();
    const alerts: string[] = [];
    gateway = await startGateway(`state: { kind: redis, url: "${server.url}", key_prefix: "readyz:" }\n${ROUTES}`);
    const sent = gateway.app.alerts.send.bind(gateway.app.alerts);
    gateway.app.alerts.send = (alert) => {
      alerts.push(alert.type);
      sent(alert);
    };
    expect((await readiness(gateway.url)).body.state).toBe('shared');
    expect(await degradedGauge(gateway.url)).toBe('0');

    await server.stop();
    await eventually(async () => (await readiness(gateway!.url)).body.state === 'degraded');
    expect((await readiness(gateway.url)).status).toBe(200);
    expect(await degradedGauge(gateway.url)).toBe('1');
    expect(alerts).toContain('state_unavailable');
    // Serving goes on without Redis.
    expect((await postChat(gateway.url, { model: 'r', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);

    await server.start();
    await eventually(async () => (await readiness(gateway!.url)).body.state === 'shared', 10_000);
    expect(await degradedGauge(gateway.url)).toBe('0');
    expect(alerts).toContain('state_restored');
  }, 30_000);

  it.runIf(redis.available)('says degraded when Redis is unreachable at start, and the gateway serves anyway', async () => {
    const server = redis.server();
    await server.stop();
    try {
      const startedAtMs = Date.now();
      gateway = await startGateway(`state: { kind: redis, url: "${server.url}" }\n${ROUTES}`);
      expect(Date.now() - startedAtMs).toBeLessThan(5_000);
      expect((await readiness(gateway.url)).body.state).toBe('degraded');
      expect((await postChat(gateway.url, { model: 'r', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
    } finally {
      await server.start();
    }
  }, 30_000);
});
