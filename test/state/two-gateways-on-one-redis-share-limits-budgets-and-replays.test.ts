import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { redisForThisFile } from '../support/redis-server.js';
import { createKey, keysAuth } from '../support/virtual-keys.js';
import { eventually } from '../scenario/scenario-helpers.js';

const redis = redisForThisFile();
const ADMIN_TOKEN = 'two-gateways-admin-token';
let directory: string;
let gateways: TestGateway[] = [];

// Two replicas: one Redis for state, one database for keys and the ledger.
beforeAll(async () => {
  if (!redis.available) return;
  directory = mkdtempSync(join(tmpdir(), 'switchyard-two-gateways-'));
  const config = `
state: { kind: redis, url: "${redis.server().url}", key_prefix: "two-gateways:" }
store: { kind: sqlite, path: "${join(directory, 'shared.db')}" }
${keysAuth(ADMIN_TOKEN)}
${MOCK_CONNECTIONS}
routes:
  limited: { targets: [{ connection: mock-openai, model: gpt-limited }] }
  priced:
    targets:
      - { connection: mock-openai, model: gpt-priced, price: { input_per_mtok: 5000, output_per_mtok: 7000 } }
  once: { targets: [{ connection: mock-openai, model: gpt-once }] }
`;
  gateways = [await startGateway(config)];
  gateways.push(await startGateway(config));
}, 30_000);
afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
  if (directory) rmSync(directory, { recursive: true, force: true });
});

const [one, two] = [() => gateways[0]!, () => gateways[1]!];
const attemptsFor = (model: string) => gateways.reduce((sum, gateway) => sum + gateway.mock.attemptsFor(model).length, 0);
const errorCode = async (response: Response) => ((await response.json()) as { error: { code: string } }).error.code;

describe.runIf(redis.available)('two gateways on one Redis', () => {
  it('rpm 2 holds across them: the third request, on either, is refused before any provider', async () => {
    const { key } = await createKey(one().url, ADMIN_TOKEN, { name: 'rpm-2', limits: { rpm: 2 } });
    const auth = { authorization: `Bearer ${key}` };
    const body = { model: 'limited', messages: [{ role: 'user', content: 'hi' }] };
    expect((await postChat(one().url, body, auth)).status).toBe(200);
    expect((await postChat(two().url, body, auth)).status).toBe(200);
    const refused = await postChat(one().url, body, auth);
    expect(refused.status).toBe(429);
    expect(await errorCode(refused)).toBe('rate_limit_exceeded');
    expect(attemptsFor('gpt-limited')).toBe(2);
  });

  it('a budget spent through one is spent for the other', async () => {
    const { key } = await createKey(one().url, ADMIN_TOKEN, { name: 'small-budget', budget: { usd: 0.1, period: 'month' } });
    const auth = { authorization: `Bearer ${key}` };
    // One request reserves about $0.096 and costs $0.061: a second cannot fit in $0.10.
    const body = { model: 'priced', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] };
    expect((await postChat(one().url, body, auth)).status).toBe(200);
    const refused = await postChat(two().url, body, auth);
    expect(refused.status).toBe(429);
    expect(await errorCode(refused)).toBe('budget_exceeded');
    expect(attemptsFor('gpt-priced')).toBe(1);
  });

  it('an idempotent request answered by one is replayed by the other without a new generation', async () => {
    const { key } = await createKey(one().url, ADMIN_TOKEN, { name: 'idempotent' });
    const headers = { authorization: `Bearer ${key}`, 'idempotency-key': 'order-7' };
    const body = { model: 'once', messages: [{ role: 'user', content: 'only once, please' }] };
    const first = await postChat(one().url, body, headers);
    const firstText = await first.text();
    let replay: Response | undefined;
    // The answer is stored just after it is sent: until then the other replica says it is running.
    await eventually(async () => (replay = await postChat(two().url, body, headers)).status !== 409, 5_000, 'the stored answer');
    expect(replay!.status).toBe(200);
    expect(replay!.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay!.text()).toBe(firstText);
    const other = await postChat(two().url, { ...body, temperature: 0.5 }, headers);
    expect(other.status).toBe(422);
    expect(attemptsFor('gpt-once')).toBe(1);
  });

  it('a request one admitted while Redis hung counts once against the key’s shared rpm once Redis answers', async () => {
    // rpm 2, one place back every 30 s: what follows fits in the minute.
    const { key } = await createKey(one().url, ADMIN_TOKEN, { name: 'rpm-2-outage', limits: { rpm: 2 } });
    const ask = (gateway: TestGateway) => postChat(gateway.url, { model: 'limited', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${key}` });
    const stateOf = async (gateway: TestGateway) => ((await (await fetch(`${gateway.url}/readyz`)).json()) as { state: string }).state;
    const bothAre = async (state: string) => (await stateOf(one())) === state && (await stateOf(two())) === state;

    redis.server().freeze();
    try {
      // Both find the hang on their own, so no request here waits on Redis: the one admitted is the local gate's alone.
      await eventually(() => bothAre('degraded'), 10_000, 'both degraded');
      expect((await ask(one())).status).toBe(200);
    } finally {
      redis.server().thaw();
    }
    await eventually(() => bothAre('shared'), 10_000, 'both shared again');
    // The fleet's minute holds two, one of them taken during the outage: the other gateway has one left, not two (or none).
    expect((await ask(two())).status).toBe(200);
    const refused = await ask(two());
    expect(refused.status).toBe(429);
    expect(await errorCode(refused)).toBe('rate_limit_exceeded');
  });
});
