/**
 * The role × endpoint matrix (SPEC §15): every `/admin/` route of the gateway's route table, called
 * by every kind of caller, on team A's things. A route with no row here fails; so does a row whose
 * route has no rule in ADMIN_RULES (and a route without a rule stops the gateway from starting:
 * src/http/guard-admin-routes.test.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_RULES } from '../../src/access/admin-rules.js';
import { mockAnswerText } from '../../src/mock/answer.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { createTeam, createTeamKey } from '../support/admin-calls.js';
import { keysAuth } from '../support/virtual-keys.js';
import { ADMIN_TOKEN, adminCall, createToken } from './admin-calls.js';

/** The callers with a credential, in the order of the table's columns. */
const CALLERS = ['breakGlass', 'admin', 'auditor', 'teamAdminA', 'memberA', 'teamAdminB'] as const;
type Caller = (typeof CALLERS)[number];

/**
 * `ok`: let through, and answered with a 2xx (every call's body is valid); `role`: 403 at the door (the route's rule excludes every role the caller
 * holds); `team`: 403 because the thing is team A's and the caller holds no role that reaches it there.
 */
type Expected = 'ok' | 'role' | 'team';

interface Fixture {
  url: string;
  teamA: string;
  keyA: string;
  requestA: string;
}

interface Call {
  path: string;
  body?: unknown;
}

interface Row {
  /** One column per caller, in the order of CALLERS. */
  expected: string;
  /** The call on team A's things, with a valid body; made afresh for each caller where the call uses the thing up. */
  call(fixture: Fixture, caller: Caller): Promise<Call> | Call;
}

const path = (template: string) => ({ path: template });
let unique = 0;

/**
 * Columns: break-glass admin.token | admin token | auditor token | team_admin of A | member of A |
 * team_admin of B (on team A's things, so `team` where a team role would have reached them).
 */
const MATRIX: Record<string, Row> = {
  'GET /admin/me': { expected: 'ok ok ok ok ok ok', call: () => path('/admin/me') },
  'GET /admin/requests': { expected: 'ok ok ok ok ok ok', call: () => path('/admin/requests') },
  'GET /admin/requests/:id': { expected: 'ok ok ok ok ok team', call: (f) => path(`/admin/requests/${f.requestA}`) },
  'GET /admin/health': { expected: 'ok ok ok ok ok ok', call: () => path('/admin/health') },
  'GET /admin/stats': { expected: 'ok ok ok ok ok ok', call: () => path('/admin/stats') },
  'POST /admin/keys': {
    expected: 'ok ok role ok ok team',
    // A member makes an exploration key for itself; a team_admin a service key of its team.
    call: (f, caller) => ({ path: '/admin/keys', body: { name: `matrix ${unique++}`, ...teamFields(f, caller) } }),
  },
  'GET /admin/keys': { expected: 'ok ok ok ok ok ok', call: () => path('/admin/keys') },
  'PATCH /admin/keys/:id': { expected: 'ok ok role ok role team', call: (f) => ({ path: `/admin/keys/${f.keyA}`, body: { name: `renamed ${unique++}` } }) },
  'DELETE /admin/keys/:id': {
    // A member revokes its own exploration keys only, not a service key of its team.
    expected: 'ok ok role ok team team',
    call: async (f) => path(`/admin/keys/${await teamKey(f)}`),
  },
  'POST /admin/keys/:id/rotate': { expected: 'ok ok role ok role team', call: async (f) => ({ path: `/admin/keys/${await teamKey(f)}/rotate`, body: {} }) },
  // A member reads its team's spend (GET /admin/teams/:id/spend) and its own keys', not a service key's.
  'GET /admin/keys/:id/spend': { expected: 'ok ok ok ok team team', call: (f) => path(`/admin/keys/${f.keyA}/spend`) },
  'POST /admin/teams': { expected: 'ok ok role role role role', call: () => ({ path: '/admin/teams', body: { name: `matrix-team-${unique++}` } }) },
  'GET /admin/teams': { expected: 'ok ok ok ok ok ok', call: () => path('/admin/teams') },
  'GET /admin/teams/:id': { expected: 'ok ok ok ok ok team', call: (f) => path(`/admin/teams/${f.teamA}`) },
  'PATCH /admin/teams/:id': {
    // A team_admin changes its team's exploration policy only.
    expected: 'ok ok role ok role team',
    call: (f) => ({ path: `/admin/teams/${f.teamA}`, body: { exploration: { max_ttl_s: 3_600 } } }),
  },
  'DELETE /admin/teams/:id': { expected: 'ok ok role role role role', call: async (f) => path(`/admin/teams/${await createTeam(f.url, { name: `doomed-${unique++}` })}`) },
  'GET /admin/teams/:id/spend': { expected: 'ok ok ok ok ok team', call: (f) => path(`/admin/teams/${f.teamA}/spend`) },
  'POST /admin/tokens': { expected: 'ok ok role role role role', call: () => ({ path: '/admin/tokens', body: { name: `matrix ${unique++}`, role: 'auditor' } }) },
  'GET /admin/tokens': { expected: 'ok ok ok role role role', call: () => path('/admin/tokens') },
  'DELETE /admin/tokens/:id': { expected: 'ok ok role role role role', call: async (f) => path(`/admin/tokens/${(await createToken(f.url, { name: `doomed ${unique++}`, role: 'auditor' })).id}`) },
  'GET /admin/audit': { expected: 'ok ok ok role role role', call: () => path('/admin/audit') },
  'GET /admin/canaries': { expected: 'ok ok ok role role role', call: () => path('/admin/canaries') },
  'POST /admin/canaries': { expected: 'ok ok role role role role', call: () => ({ path: '/admin/canaries', body: { route: 'r' } }) },
  'DELETE /admin/canaries/:route/baseline': { expected: 'ok ok role role role role', call: () => path('/admin/canaries/r/baseline') },
  'POST /admin/drills': { expected: 'ok ok role role role role', call: () => ({ path: '/admin/drills', body: { route: 'r' } }) },
  'GET /admin/drills': { expected: 'ok ok ok role role role', call: () => path('/admin/drills') },
  'POST /admin/rehearsals': { expected: 'ok ok role role role role', call: () => ({ path: '/admin/rehearsals', body: { routes: ['r'], faults: ['server_error'] } }) },
};

/** A new key's team (and kind, for a member's own exploration key), as a caller of a team role gives them. */
function teamFields(fixture: Fixture, caller: Caller): Record<string, string> {
  if (caller === 'memberA') return { team: fixture.teamA, kind: 'exploration' };
  return caller === 'teamAdminA' || caller === 'teamAdminB' ? { team: fixture.teamA } : {};
}

/** A fresh key of team A, for a call that uses its key up (a revocation, a rotation). */
async function teamKey(fixture: Fixture): Promise<string> {
  return (await createTeamKey(fixture.url, { name: `team a ${unique++}`, team: fixture.teamA })).id;
}

function expectationsOf(route: string): Record<Caller, Expected> {
  const columns = MATRIX[route]!.expected.split(/\s+/);
  expect(columns, `${route}: one column per caller`).toHaveLength(CALLERS.length);
  return Object.fromEntries(CALLERS.map((caller, index) => [caller, columns[index] as Expected])) as Record<Caller, Expected>;
}

let directory: string;
let gateway: TestGateway;
let fixture: Fixture;
const tokens = {} as Record<Caller, string>;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'switchyard-role-matrix-'));
  const prompts = join(directory, 'prompts.jsonl');
  writeFileSync(prompts, `${JSON.stringify({ messages: [{ role: 'user', content: 'hello' }], reference: mockAnswerText(8) })}\n`);
  const storeLine = `store: { kind: sqlite, path: "${join(directory, 'matrix.db')}" }`;
  gateway = await startGateway(`
${storeLine}
${keysAuth(ADMIN_TOKEN)}
connections:
  mock: { provider: mock }
routes:
  r: { targets: [{ connection: mock, model: m }] }
drills: { interval_s: 0, routes: [r] }
canaries:
  r: { interval_s: 0, prompts: "${prompts}", baseline: 1 }
`);
  const teamA = await createTeam(gateway.url, { name: 'team-a' });
  const teamB = await createTeam(gateway.url, { name: 'team-b' });
  const key = await createTeamKey(gateway.url, { name: 'team a service', team: teamA });
  const served = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'r', messages: [{ role: 'user', content: 'hi' }] }),
    signal: AbortSignal.timeout(30_000),
  });
  expect(served.status).toBe(200);
  fixture = { url: gateway.url, teamA, keyA: key.id, requestA: served.headers.get('x-request-id')! };
  // Something to read for the readers of drills and canaries.
  expect((await adminCall(gateway.url, 'POST', '/admin/drills')).status).toBe(200);
  expect((await adminCall(gateway.url, 'POST', '/admin/canaries')).status).toBe(200);

  tokens.breakGlass = ADMIN_TOKEN;
  tokens.admin = (await createToken(gateway.url, { name: 'admin', role: 'admin' })).token;
  tokens.auditor = (await createToken(gateway.url, { name: 'auditor', role: 'auditor' })).token;
  tokens.teamAdminA = (await createToken(gateway.url, { name: 'lead a', role: 'team_admin', team: teamA })).token;
  tokens.memberA = (await createToken(gateway.url, { name: 'member a', role: 'member', team: teamA })).token;
  tokens.teamAdminB = (await createToken(gateway.url, { name: 'lead b', role: 'team_admin', team: teamB })).token;
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  if (directory) rmSync(directory, { recursive: true, force: true });
});

describe('the table covers the gateway', () => {
  it('every /admin/ route of the route table has a row, and every row a rule', () => {
    const adminRoutes = gateway.app.routeKeys.filter((route) => route.includes(' /admin/'));
    expect(adminRoutes.length).toBeGreaterThan(10);
    expect(adminRoutes.filter((route) => !(route in MATRIX)), 'routes with no row in MATRIX').toEqual([]);
    expect(Object.keys(MATRIX).filter((route) => !(route in ADMIN_RULES)), 'rows with no rule in ADMIN_RULES').toEqual([]);
    expect(Object.keys(ADMIN_RULES).filter((route) => !(route in MATRIX)), 'rules with no row in MATRIX').toEqual([]);
  });
});

const methodOf = (route: string) => route.split(' ')[0]!;

describe.each(Object.keys(MATRIX))('%s', (route) => {
  it('is refused 401 without a credential', async () => {
    const call = await MATRIX[route]!.call(fixture, 'breakGlass');
    const answer = await adminCall(gateway.url, methodOf(route), call.path, { token: null, ...(call.body !== undefined && { body: call.body }) });
    expect(answer.status, answer.text).toBe(401);
    expect(answer.body.error?.code).toBe('invalid_api_key');
  });

  it.for(CALLERS)('answers %s as the table says', async (caller) => {
    const row = MATRIX[route]!;
    const expected = expectationsOf(route)[caller];
    const call = await row.call(fixture, caller);
    const answer = await adminCall(gateway.url, methodOf(route), call.path, { token: tokens[caller], ...(call.body !== undefined && { body: call.body }) });
    const shown = `${caller} → ${route}: ${answer.status} ${answer.text.slice(0, 300)}`;
    if (expected === 'ok') {
      expect(answer.status >= 200 && answer.status < 300, shown).toBe(true);
      return;
    }
    expect(answer.status, shown).toBe(403);
    expect(answer.body.error?.code, shown).toBe('permission_denied');
    // The message names the roles that would have been let through: the rule's at the door, admin or team_admin for a team's things.
    const needed = expected === 'role' ? ADMIN_RULES[route]! : ['team_admin'];
    for (const role of needed) expect(answer.body.error?.message, shown).toContain(`"${role}"`);
  });
});
