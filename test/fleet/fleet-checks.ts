/**
 * Exactness checks a fleet must pass whatever its Redis (one server or a cluster): each is the
 * YAML of the route it sends to (under `routes:`, on the `mock` connection) and the check itself,
 * run against the fleet of the calling test file. Not a test file itself.
 */
import { expect } from 'vitest';
import { eventually } from '../scenario/scenario-helpers.js';
import { queryPostgres } from '../scenario/postgres-helpers.js';
import { adminCall, chat, createFleetKey, createFleetTeam, healthOf, type FleetForThisFile } from './fleet-helpers.js';

/** rpm 4: eight requests alternating between two replicas admit four; the rest get 429 rate_limit_exceeded with retry-after. */
export const rpmCheck = {
  route: (name: string) => `  ${name}: { targets: [{ connection: mock, model: gpt-rpm }] }`,
  async run(fleet: FleetForThisFile, route: string): Promise<void> {
    const [a, b] = fleet.fleet().replicas;
    const { key } = await createFleetKey(a!.url, { name: 'rpm-4', limits: { rpm: 4 } });
    const answers = [];
    for (let index = 0; index < 8; index++) answers.push(await chat((index % 2 === 0 ? a : b)!.url, key, { model: route }));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 429, 429, 429, 429]);
    for (const refused of answers.slice(4)) {
      expect(refused.body.error?.code).toBe('rate_limit_exceeded');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(fleet.mock().attemptsFor('gpt-rpm')).toHaveLength(4);
  },
};

/**
 * Ten concurrent requests over the replicas against a budget of two requests admit at most two,
 * and the spend stays within the budget. The mock counts 1 input token for 'x' and answers 8
 * output tokens: at $5,000 / $7,000 per million tokens one request costs $0.061 and, with
 * max_tokens 8, reserves about $0.096. A $0.20 budget holds two reservations, never three.
 */
export const budgetCheck = {
  route: (name: string) => `  ${name}:
    targets:
      - { connection: mock, model: "gpt-budget?first_token_ms=300", price: { input_per_mtok: 5000, output_per_mtok: 7000 } }`,
  async run(fleet: FleetForThisFile, route: string): Promise<void> {
    const replicas = fleet.fleet().replicas;
    const { id, key } = await createFleetKey(replicas[0]!.url, { name: 'two-requests', budget: { usd: 0.2, period: 'day' } });
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, index) => chat(replicas[index % replicas.length]!.url, key, { model: route, max_tokens: 8, messages: [{ role: 'user', content: 'x' }] })),
    );
    const admitted = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(admitted.length).toBeGreaterThanOrEqual(1);
    expect(admitted.length).toBeLessThanOrEqual(2);
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      expect(answer.body.error?.code).toBe('budget_exceeded');
    }
    // The provider generated once per admitted request, fleet-wide.
    expect(fleet.mock().attemptsFor('gpt-budget')).toHaveLength(admitted.length);

    // Every replica writes its spend rows in the background: read them once all have landed.
    let rows: { request_id: string; cost_micros: string }[] = [];
    await eventually(
      async () => {
        rows = await queryPostgres(fleet.databaseUrl(), 'SELECT request_id, cost_micros FROM spend WHERE key_id = $1', [id]);
        return rows.length >= admitted.length;
      },
      5_000,
      'the spend rows of the admitted requests',
    );
    expect(rows).toHaveLength(admitted.length);
    const spentMicros = rows.reduce((sum, row) => sum + Number(row.cost_micros), 0);
    expect(spentMicros).toBeGreaterThan(0);
    expect(spentMicros).toBeLessThanOrEqual(200_000);
  },
};

/** Replica A ejects a failing deployment and replica B skips it within 1 s, without sending it a request. */
export const ejectionCheck = {
  route: (name: string) => `  ${name}:
    retries: 0
    health: { consecutive_failures: 3, eject_base_s: 30 }
    targets:
      - { connection: mock, model: "gpt-down?status=503" }
      - { connection: mock, model: gpt-standby }`,
  async run(fleet: FleetForThisFile, route: string): Promise<void> {
    const [a, b] = fleet.fleet().replicas;
    const { key } = await createFleetKey(a!.url, { name: 'ejector' });
    // B serves the route too (one failure of its own, short of tripping), as every replica of a busy fleet does.
    expect((await chat(b!.url, key, { model: route })).headers.get('x-switchyard-served-by')).toBe('mock/gpt-standby');
    for (let index = 0; index < 3; index++) {
      const answer = await chat(a!.url, key, { model: route });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-switchyard-served-by')).toBe('mock/gpt-standby');
    }
    expect(await healthOf(a!.url, 'mock/gpt-down?status=503')).toMatchObject({ state: 'ejected' });
    await eventually(async () => (await healthOf(b!.url, 'mock/gpt-down?status=503')).state === 'ejected', 1_000, 'replica B seeing the ejection');

    const onB = await chat(b!.url, key, { model: route });
    expect(onB.status).toBe(200);
    expect(onB.headers.get('x-switchyard-served-by')).toBe('mock/gpt-standby');
    expect(onB.headers.get('x-switchyard-attempts')).toBe('1');
    // The failing deployment saw B's first failure and A's three, and nothing from B since the ejection.
    expect(fleet.mock().attemptsFor('gpt-down')).toHaveLength(4);
    expect(fleet.mock().attemptsFor('gpt-standby')).toHaveLength(5);
  },
};

/** A key revoked on replica A is refused by replica B within 1 s, without reaching the provider. */
export const revocationCheck = {
  route: (name: string) => `  ${name}: { targets: [{ connection: mock, model: gpt-revoked }] }`,
  async run(fleet: FleetForThisFile, route: string): Promise<void> {
    const [a, b] = fleet.fleet().replicas;
    const { id, key } = await createFleetKey(a!.url, { name: 'doomed' });
    // Both replicas know (and cache) the key.
    expect((await chat(a!.url, key, { model: route })).status).toBe(200);
    expect((await chat(b!.url, key, { model: route })).status).toBe(200);
    expect(fleet.mock().attemptsFor('gpt-revoked')).toHaveLength(2);

    expect(await adminCall(a!.url, 'DELETE', `/admin/keys/${id}`)).toEqual({ id, revoked: true });
    let servedMeanwhile = 0;
    await eventually(
      async () => {
        const answer = await chat(b!.url, key, { model: route });
        if (answer.status === 200) servedMeanwhile++;
        return answer.status === 401;
      },
      1_000,
      'replica B refusing the revoked key',
    );
    const refused = await chat(b!.url, key, { model: route });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({ code: 'invalid_api_key' });
    expect(refused.body.error?.message).toMatch(/revoked/);
    // The provider saw the two requests before the revocation and only what B served before it heard.
    expect(fleet.mock().attemptsFor('gpt-revoked')).toHaveLength(2 + servedMeanwhile);
  },
};

/** What a fleet's admitted requests of these keys spent, from its spend rows, once every replica has written them. */
async function fleetSpentMicros(fleet: FleetForThisFile, keyIds: readonly string[], admitted: number): Promise<number> {
  let rows: { cost_micros: string }[] = [];
  await eventually(
    async () => {
      rows = await queryPostgres(fleet.databaseUrl(), 'SELECT cost_micros FROM spend WHERE key_id = ANY($1)', [keyIds]);
      return rows.length >= admitted;
    },
    5_000,
    'the spend rows of the admitted requests',
  );
  expect(rows).toHaveLength(admitted);
  return rows.reduce((sum, row) => sum + Number(row.cost_micros), 0);
}

/**
 * Twenty concurrent requests over the replicas, of two keys of a team whose $0.20 holds two
 * reservations (each key's own budget fifty times that), admit at most two, refused ones naming the
 * team; then twenty of a key whose own $0.20 is less than its team's admit at most two, refused as
 * the key's. The spend stays within each budget. Prices and reservations as `budgetCheck`'s.
 */
export const teamBudgetCheck = {
  route: (name: string) => `  ${name}:
    targets:
      - { connection: mock, model: "gpt-team-budget?first_token_ms=300", price: { input_per_mtok: 5000, output_per_mtok: 7000 } }`,
  async run(fleet: FleetForThisFile, route: string): Promise<void> {
    const replicas = fleet.fleet().replicas;
    const body = { model: route, max_tokens: 8, messages: [{ role: 'user', content: 'x' }] };
    const twenty = async (keys: readonly string[], refusal: RegExp): Promise<number> => {
      const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => chat(replicas[index % replicas.length]!.url, keys[Math.floor(index / 2) % keys.length]!, body)));
      const admitted = answers.filter((answer) => answer.status === 200).length;
      expect(admitted).toBeGreaterThanOrEqual(1);
      expect(admitted).toBeLessThanOrEqual(2);
      for (const refused of answers.filter((answer) => answer.status !== 200)) {
        expect(refused.status).toBe(429);
        expect(refused.body.error?.code).toBe('budget_exceeded');
        expect(refused.body.error?.message).toMatch(refusal);
      }
      return admitted;
    };

    const search = await createFleetTeam(replicas[0]!.url, { name: 'fleet-search', budget: { usd: 0.2, period: 'day' } });
    const keys = [
      await createFleetKey(replicas[0]!.url, { name: 'team-a', team: search, budget: { usd: 10, period: 'day' } }),
      await createFleetKey(replicas[1]!.url, { name: 'team-b', team: search, budget: { usd: 10, period: 'day' } }),
    ];
    const byTeam = await twenty(keys.map(({ key }) => key), /of team "fleet-search"/);
    expect(fleet.mock().attemptsFor('gpt-team-budget')).toHaveLength(byTeam);
    const teamSpent = await fleetSpentMicros(fleet, keys.map(({ id }) => id), byTeam);
    expect(teamSpent).toBeGreaterThan(0);
    expect(teamSpent).toBeLessThanOrEqual(200_000);

    const ads = await createFleetTeam(replicas[0]!.url, { name: 'fleet-ads', budget: { usd: 10, period: 'day' } });
    const small = await createFleetKey(replicas[0]!.url, { name: 'team-small', team: ads, budget: { usd: 0.2, period: 'day' } });
    const byKey = await twenty([small.key], /this key's daily budget/);
    expect(fleet.mock().attemptsFor('gpt-team-budget')).toHaveLength(byTeam + byKey);
    const keySpent = await fleetSpentMicros(fleet, [small.id], byKey);
    expect(keySpent).toBeGreaterThan(0);
    expect(keySpent).toBeLessThanOrEqual(200_000);
  },
};

/** A team's rpm 4 over two keys (each its own rpm 10): eight requests alternating keys and replicas admit four; the rest name the team, with retry-after. */
export const teamRpmCheck = {
  route: (name: string) => `  ${name}: { targets: [{ connection: mock, model: gpt-team-rpm }] }`,
  async run(fleet: FleetForThisFile, route: string): Promise<void> {
    const [a, b] = fleet.fleet().replicas;
    const team = await createFleetTeam(a!.url, { name: 'fleet-rpm', limits: { rpm: 4 } });
    const keys = [await createFleetKey(a!.url, { name: 'rpm-team-a', team, limits: { rpm: 10 } }), await createFleetKey(a!.url, { name: 'rpm-team-b', team, limits: { rpm: 10 } })];
    const answers = [];
    for (let index = 0; index < 8; index++) answers.push(await chat((index % 2 === 0 ? a : b)!.url, keys[Math.floor(index / 2) % 2]!.key, { model: route }));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 429, 429, 429, 429]);
    for (const refused of answers.slice(4)) {
      expect(refused.body.error).toMatchObject({ code: 'rate_limit_exceeded', message: 'Rate limit reached for team "fleet-rpm": 4 requests per minute across its keys.' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(fleet.mock().attemptsFor('gpt-team-rpm')).toHaveLength(4);
  },
};
