/**
 * A gateway with an incident to look at, for the dashboard's browser tests and its screenshot
 * script: keys with budgets and limits, a route whose primary is down (served after failover, and
 * probed by the gateway once ejected), routes whose every target fails (a 500, a provider's 429 —
 * then passed over while it cools), and refusals of each class — a wrong key, a key over its
 * requests-per-minute, a key over its budget, a malformed body, bodies refused before any route.
 */
import { createTeam, createTeamKey } from './admin-calls.js';
import { createKey } from './virtual-keys.js';
import { postChat } from './start-gateway.js';

export const DASHBOARD_ADMIN_TOKEN = 'dashboard-admin-token';

/** Demo prices: high enough that a handful of mock requests shows cents. */
const PRICE = '{ input_per_mtok: 1000, output_per_mtok: 1000 }';

export const INCIDENT_CONFIG = `
auth: { mode: keys }
admin: { token: ${DASHBOARD_ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
  mock-anthropic: { provider: mock, dialect: anthropic }
routes:
  support:
    retries: 0
    targets:
      - { connection: mock-openai, model: "primary?status=503", price: ${PRICE} }
      - { connection: mock-anthropic, model: standby, price: ${PRICE} }
  steady:
    retries: 0
    targets: [{ connection: mock-openai, model: "steady?ratelimit=1000&remaining=640&cached=4", price: ${PRICE} }]
  reports:
    retries: 0
    targets: [{ connection: mock-openai, model: "broken?status=500", price: ${PRICE} }]
  bulk:
    retries: 0
    targets: [{ connection: mock-anthropic, model: "throttled?status=429&retry_after=120", price: ${PRICE} }]
drills: { interval_s: 0, routes: [support] }
`;

/** What was sent, by how the gateway should have ended each request. */
export interface IncidentTraffic {
  sent: number;
  servedFirstTry: number;
  servedAfterFailover: number;
  refused: { auth: number; rate_limit: number; budget: number; bad_request: number };
  failedUpstream: number;
  /** Refused before any route (an unknown model, a body that is not JSON): the Overview's "no route" row. */
  noRoute: number;
  /** The keys' names, by what they are for. */
  keys: { team: string; tight: string; broke: string };
}

const PLAN = { steady: 12, support: 6, reports: 3, bulk: 1, bulkCooling: 1, tightAllowed: 2, tightRefused: 2, wrongKey: 2, badBody: 2, noRoute: 2, brokeRefused: 2 } as const;

/** Sends the incident's traffic one request at a time (so the counts are exact) and says what was sent. */
export async function sendIncidentTraffic(gatewayUrl: string): Promise<IncidentTraffic> {
  const team = await createKey(gatewayUrl, DASHBOARD_ADMIN_TOKEN, { name: 'team-support', budget: { usd: 2, period: 'month' } });
  const tight = await createKey(gatewayUrl, DASHBOARD_ADMIN_TOKEN, { name: 'batch-job', limits: { rpm: PLAN.tightAllowed } });
  // A budget smaller than any request's estimate: every request of it is refused for budget.
  const broke = await createKey(gatewayUrl, DASHBOARD_ADMIN_TOKEN, { name: 'intern', budget: { usd: 0.000001, period: 'month' } });
  const chat = async (key: string, model: string, expected: number[], body?: unknown, stream = false) => {
    const response =
      typeof body === 'string'
        ? await fetch(`${gatewayUrl}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(30_000) })
        : await postChat(gatewayUrl, body ?? { model, stream, messages: [{ role: 'user', content: 'Where is my order?' }] }, { authorization: `Bearer ${key}` });
    await response.text();
    if (!expected.includes(response.status)) throw new Error(`${model} with key ${key.slice(0, 8)}… answered ${response.status}, expected ${expected.join(' or ')}`);
  };
  // Half of them stream, so first-token times are there to see.
  for (let index = 0; index < PLAN.steady; index++) await chat(team.key, 'steady', [200], undefined, index % 2 === 0);
  for (let index = 0; index < PLAN.support; index++) await chat(team.key, 'support', [200], undefined, true);
  for (let index = 0; index < PLAN.reports; index++) await chat(team.key, 'reports', [500, 502, 503]);
  for (let index = 0; index < PLAN.bulk; index++) await chat(team.key, 'bulk', [429, 502, 503]);
  // Its only target cools for the provider's Retry-After: passed over, with no attempt, yet the provider's failure.
  for (let index = 0; index < PLAN.bulkCooling; index++) await chat(team.key, 'bulk', [429]);
  for (let index = 0; index < PLAN.tightAllowed; index++) await chat(tight.key, 'steady', [200]);
  for (let index = 0; index < PLAN.tightRefused; index++) await chat(tight.key, 'steady', [429]);
  for (let index = 0; index < PLAN.brokeRefused; index++) await chat(broke.key, 'steady', [402, 429]);
  for (let index = 0; index < PLAN.wrongKey; index++) await chat('sk-not-a-key', 'steady', [401]);
  for (let index = 0; index < PLAN.badBody; index++) await chat(team.key, 'steady', [400], { model: 'steady', messages: 'not a list' });
  // Refused before any route: a model no route answers to, and a body that is not JSON.
  await chat(team.key, 'steady', [404], { model: 'no-such-route', messages: [{ role: 'user', content: 'hi' }] });
  await chat(team.key, 'steady', [400], '{"model": "steady", ');
  return {
    sent: Object.values(PLAN).reduce((sum, count) => sum + count, 0),
    servedFirstTry: PLAN.steady + PLAN.tightAllowed,
    servedAfterFailover: PLAN.support,
    refused: { auth: PLAN.wrongKey, rate_limit: PLAN.tightRefused, budget: PLAN.brokeRefused, bad_request: PLAN.badBody + PLAN.noRoute },
    failedUpstream: PLAN.reports + PLAN.bulk + PLAN.bulkCooling,
    noRoute: PLAN.noRoute,
    keys: { team: 'team-support', tight: 'batch-job', broke: 'intern' },
  };
}

/** A call of the admin API with the dashboard's token; anything but 200 throws, naming the call. */
export async function adminCall<T>(gatewayUrl: string, method: 'GET' | 'POST', path: string): Promise<T> {
  const response = await fetch(`${gatewayUrl}${path}`, { method, headers: { authorization: `Bearer ${DASHBOARD_ADMIN_TOKEN}` }, signal: AbortSignal.timeout(30_000) });
  if (response.status !== 200) throw new Error(`${method} ${path} → ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

/**
 * A team as the Teams page shows one: a budget, limits, route bounds and an exploration policy, a
 * service key with a few served requests, and an exploration key (made with the admin token, its
 * owner). Needs `auth: { mode: keys }` and the dashboard's admin token.
 */
export async function sendTeamTraffic(gatewayUrl: string, requests = 3): Promise<{ teamId: string; serviceKey: string }> {
  const teamId = await createTeam(
    gatewayUrl,
    { name: 'search', budget: { usd: 5, period: 'day' }, limits: { rpm: 600 }, routes: ['steady', 'support'], exploration: { max_ttl_s: 86_400, budget: { usd: 1, period: 'day' } } },
    DASHBOARD_ADMIN_TOKEN,
  );
  const service = await createTeamKey(gatewayUrl, { name: 'search-indexer', team: teamId }, DASHBOARD_ADMIN_TOKEN);
  await createTeamKey(gatewayUrl, { name: 'try-reranker', team: teamId, kind: 'exploration' }, DASHBOARD_ADMIN_TOKEN);
  for (let index = 0; index < requests; index++) {
    const response = await postChat(gatewayUrl, { model: 'steady', messages: [{ role: 'user', content: 'Find my order' }] }, { authorization: `Bearer ${service.key}` });
    await response.text();
    if (response.status !== 200) throw new Error(`the team's key was answered ${response.status}`);
  }
  return { teamId, serviceKey: service.key };
}
