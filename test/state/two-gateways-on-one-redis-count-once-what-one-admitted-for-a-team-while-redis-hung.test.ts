import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../scenario/scenario-helpers.js';
import { redisForThisFile } from '../support/redis-server.js';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { createTeam } from '../support/admin-calls.js';
import { createKey, keysAuth } from '../support/virtual-keys.js';

const redis = redisForThisFile();
const ADMIN_TOKEN = 'team-outage-admin-token';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
let directory: string;
let storePath: string;
let gateways: TestGateway[] = [];

// Two replicas: one Redis for state, one SQLite file for keys, teams and the ledger.
beforeAll(async () => {
  if (!redis.available) return;
  directory = mkdtempSync(join(tmpdir(), 'switchyard-team-outage-'));
  storePath = join(directory, 'shared.db');
  const config = `
state: { kind: redis, url: "${redis.server().url}", key_prefix: "team-outage:" }
store: { kind: sqlite, path: "${storePath}" }
${keysAuth(ADMIN_TOKEN)}
${MOCK_CONNECTIONS}
routes:
  limited: { targets: [{ connection: mock-openai, model: gpt-limited }] }
  priced:
    targets:
      - { connection: mock-openai, model: gpt-priced, price: { input_per_mtok: 5000, output_per_mtok: 7000 } }
`;
  gateways = [await startGateway(config)];
  gateways.push(await startGateway(config));
}, 30_000);
afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
  if (directory) rmSync(directory, { recursive: true, force: true });
});

const [one, two] = [() => gateways[0]!, () => gateways[1]!];
const stateOf = async (gateway: TestGateway) => ((await (await fetch(`${gateway.url}/readyz`)).json()) as { state: string }).state;
const bothAre = async (state: string) => (await stateOf(one())) === state && (await stateOf(two())) === state;

/** Two keys of a new team, each on its own gateway's side of the test. */
async function teamKeys(team: { name: string } & Record<string, unknown>, fields: Record<string, unknown>): Promise<{ id: string; auth: Record<string, string> }[]> {
  const teamId = await createTeam(one().url, team, ADMIN_TOKEN);
  const keys = [await createKey(one().url, ADMIN_TOKEN, { name: `${team.name} 1`, team: teamId, ...fields }), await createKey(one().url, ADMIN_TOKEN, { name: `${team.name} 2`, team: teamId, ...fields })];
  return keys.map(({ id, key }) => ({ id, auth: { authorization: `Bearer ${key}` } }));
}

/** Redis hangs (its data kept) until `meanwhile` is done; both gateways find the hang on their own, and share again after. */
async function whileRedisHangs(meanwhile: () => Promise<void>): Promise<void> {
  redis.server().freeze();
  try {
    await eventually(() => bothAre('degraded'), 10_000, 'both degraded');
    await meanwhile();
  } finally {
    redis.server().thaw();
  }
  await eventually(() => bothAre('shared'), 10_000, 'both shared again');
}

describe.runIf(redis.available)("a team's counters through a Redis hang", () => {
  it("what one gateway's keys of a team spent while Redis hung is added to the team's shared spend once", async () => {
    // One request costs $0.061 and reserves about $0.096: $0.25 holds four costs but not a fifth reservation after them.
    const [onOne, onTwo] = await teamKeys({ name: 'hung-budget', budget: { usd: 0.25, period: 'month' } }, { budget: { usd: 10, period: 'month' } });
    const ask = (gateway: TestGateway, auth: Record<string, string>) => postChat(gateway.url, { model: 'priced', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] }, auth);
    expect((await ask(one(), onOne!.auth)).status).toBe(200);
    // Admitted by the first gateway's own gate, from the team's figures Redis last gave it.
    await whileRedisHangs(async () => expect((await ask(one(), onOne!.auth)).status).toBe(200));

    // $0.122 spent fleet-wide: one more fits (it would not, had the hang's request been counted twice) ...
    expect((await ask(two(), onTwo!.auth)).status).toBe(200);
    await eventually(
      async () => ((await (await fetch(`${two().url}/admin/keys/${onTwo!.id}/spend`, { headers: admin })).json()) as { reserved_usd: number }).reserved_usd === 0,
      5_000,
      'the third request settled',
    );
    // ... and with $0.183 spent, not another (as there would be, had it not been counted at all).
    const refused = await ask(two(), onTwo!.auth);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/of team "hung-budget": \$0\.067 left/);
  });

  it("a request one gateway admitted against a team's rpm while Redis hung counts once in the team's shared minute", async () => {
    const [onOne, onTwo] = await teamKeys({ name: 'hung-rpm', limits: { rpm: 2 } }, {});
    const ask = (gateway: TestGateway, auth: Record<string, string>) => postChat(gateway.url, { model: 'limited', messages: [{ role: 'user', content: 'hi' }] }, auth);
    await whileRedisHangs(async () => expect((await ask(one(), onOne!.auth)).status).toBe(200));
    // The team's minute holds two, one taken during the hang: the other gateway has one left, not two (or none).
    expect((await ask(two(), onTwo!.auth)).status).toBe(200);
    const refused = await ask(two(), onTwo!.auth);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe('Rate limit reached for team "hung-rpm": 2 requests per minute across its keys.');
  });
});
