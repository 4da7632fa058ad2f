import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { claudeCodeTurn, weightedOverTwoAccounts } from '../support/agent-sessions.js';
import { redisForThisFile } from '../support/redis-server.js';
import { eventually, fetchRecord } from '../scenario/scenario-helpers.js';

const redis = redisForThisFile();
const ADMIN_TOKEN = 'scenario-admin-token';
const TURNS = 20;
let gateways: TestGateway[] = [];

// Two replicas on one Redis; each has its own mock behind the same two accounts.
beforeAll(async () => {
  if (!redis.available) return;
  const config = `
state: { kind: redis, url: "${redis.server().url}", key_prefix: "affinity-fleet:" }
admin: { token: ${ADMIN_TOKEN} }
${weightedOverTwoAccounts({ sticky: '' })}`;
  gateways = [await startGateway(config)];
  gateways.push(await startGateway(config));
}, 30_000);
afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
});

/** A Claude Code turn on gateway `index % 2`. */
async function turnOn(index: number, session: string): Promise<{ servedBy: string; affinity: string | undefined }> {
  const gateway = gateways[index % 2]!;
  const response = await claudeCodeTurn(gateway.url, { route: 'sticky', session, text: `turn ${index}` });
  expect(response.status).toBe(200);
  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  return { servedBy: response.headers.get('x-switchyard-served-by')!, affinity: record.affinity };
}

describe.runIf(redis.available)('a session whose turns alternate between two gateways on one Redis', () => {
  it('20 turns sent with x-claude-code-session-id all go to one target: bound on the other gateway from the second turn', async () => {
    const turns = [];
    for (let index = 0; index < TURNS; index++) turns.push(await turnOn(index, '7a1e4c2d-0b9f-4e3a-8c5d-6f2b1a0e9d8c'));
    expect(new Set(turns.map((turn) => turn.servedBy)).size).toBe(1);
    expect(turns.map((turn) => turn.affinity)).toEqual(['new', ...Array<string>(TURNS - 1).fill('bound')]);
  });

  it('20 Chat Completions turns that share a prompt_cache_key all go to one target', async () => {
    const servedBy = new Set<string>();
    for (let index = 0; index < TURNS; index++) {
      const response = await postChat(gateways[index % 2]!.url, { model: 'sticky', messages: [{ role: 'user', content: `turn ${index}` }], prompt_cache_key: 'thread-42' });
      await response.text();
      servedBy.add(response.headers.get('x-switchyard-served-by')!);
    }
    expect(servedBy.size).toBe(1);
  });

  it('with Redis gone, each gateway keeps the session where it was from its own memory, and answers every turn', async () => {
    const session = 'c4d5e6f7-0a1b-4c2d-9e3f-8a7b6c5d4e3f';
    const first = await turnOn(0, session);
    expect((await turnOn(1, session)).servedBy).toBe(first.servedBy);
    const server = redis.server();
    await server.stop();
    try {
      await eventually(async () => (await Promise.all(gateways.map((gateway) => readiness(gateway.url)))).every((state) => state === 'degraded'), 5_000, 'both gateways degraded');
      for (let index = 2; index < 8; index++) expect(await turnOn(index, session)).toEqual({ servedBy: first.servedBy, affinity: 'bound' });
    } finally {
      await server.start();
    }
  });
});

async function readiness(gatewayUrl: string): Promise<string> {
  const response = await fetch(`${gatewayUrl}/readyz`, { signal: AbortSignal.timeout(5_000) });
  return ((await response.json()) as { state: string }).state;
}
