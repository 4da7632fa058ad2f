import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KeyView } from '../../src/admin/admin-api-types.js';
import { adminCall } from '../support/admin-calls.js';
import { chromiumForThisFile } from '../support/chromium-browser.js';
import { sendTeamTraffic } from '../support/dashboard-traffic.js';
import { postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { ADMIN_TOKEN, DASHBOARD_ROUTES, openPage, screenshot, signIn } from './dashboard-helpers.js';

const { available, browser } = chromiumForThisFile();
let gateway: TestGateway;
let searchId: string;
/** Tokens of people in team search: a member, and its team admin. */
const tokens: Record<'member' | 'teamAdmin', { id: string; token: string }> = { member: { id: '', token: '' }, teamAdmin: { id: '', token: '' } };

const asAdmin = (method: string, path: string, body?: unknown) => adminCall(gateway.url, method, path, { token: ADMIN_TOKEN, ...(body === undefined ? {} : { body }) });

beforeAll(async () => {
  if (!available) return;
  gateway = await startGateway(`auth: { mode: keys }\n${DASHBOARD_ROUTES}`);
  ({ teamId: searchId } = await sendTeamTraffic(gateway.url, 1));
  expect((await asAdmin('POST', '/admin/teams', { name: 'ads' })).status).toBe(201);
  for (const [who, fields] of [
    ['member', { name: 'Mia', role: 'member', team: 'search' }],
    ['teamAdmin', { name: 'Theo', role: 'team_admin', team: 'search' }],
  ] as const) {
    const answer = await asAdmin('POST', '/admin/tokens', fields);
    expect(answer.status, answer.text).toBe(201);
    tokens[who] = { id: answer.body.id as string, token: answer.body.token as string };
  }
}, 60_000);
afterAll(() => gateway?.close());

it.skipIf(!available)('a member signed in with its token sees only its team, makes an exploration key for itself (the secret shown once, and it works), and is offered no change to the team', async () => {
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url, '/ui/', tokens.member.token);
    const navigation = page.getByRole('navigation', { name: 'Dashboard' });
    expect(await navigation.getByRole('link').allTextContents()).toEqual(['Overview', 'Deployments', 'Requests', 'Keys', 'Teams']);
    await navigation.getByRole('link', { name: 'Teams' }).click();
    const card = page.locator('section.team[data-team="search"]');
    await card.waitFor();
    expect(await page.locator('section.team').count()).toBe(1);
    // A member reads its team's spend, not its other keys: only its own exploration keys are listed.
    await card.locator('.team-spend [role="meter"]').waitFor();
    await card.getByRole('heading', { name: 'Your exploration keys' }).waitFor();
    expect(await card.getByRole('heading', { name: 'Service keys' }).count()).toBe(0);
    for (const action of ['Change team', 'Change exploration policy', 'Delete team', 'Create team']) expect(await page.getByRole('button', { name: action }).count(), action).toBe(0);

    await card.getByRole('button', { name: 'Make an exploration key' }).click();
    const form = card.getByRole('form', { name: 'Exploration key in search' });
    await form.getByLabel('Key name').fill('mia-tries-rerank');
    await form.getByRole('button', { name: 'Make key' }).click();
    const secret = (await page.locator('#new-secret').textContent())!;
    expect(secret).toMatch(/^sk-sy-/);
    const row = card.locator('table.exploration-keys tr[data-key="mia-tries-rerank"]');
    await row.waitFor();
    expect(await row.locator('.key-owner').textContent()).toBe('Mia (you)');
    const made = ((await asAdmin('GET', '/admin/keys')).body.data as unknown as KeyView[]).find((key) => key.name === 'mia-tries-rerank')!;
    expect(made).toMatchObject({ team: searchId, kind: 'exploration', owner: tokens.member.id, budget: { usd: 1, period: 'day' } });
    expect(await row.locator('.key-expiry time').getAttribute('datetime')).toBe(made.expires_at);
    // Its expiry is the policy's day from when it was made (the two times are read a moment apart).
    const lifeMs = Date.parse(made.expires_at!) - Date.parse(made.created_at);
    expect(Math.abs(lifeMs - 86_400_000)).toBeLessThan(60_000);
    await screenshot(page, 'teams-member');

    const answer = await postChat(gateway.url, { model: 'steady', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${secret}` });
    expect(answer.status).toBe(200);
    await answer.text();

    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(secret);
    // Another team's page is not there to open, and its spend is refused.
    expect((await adminCall(gateway.url, 'GET', '/admin/teams/ads/spend', { token: tokens.member.token })).status).toBe(403);
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});

it.skipIf(!available)("the team's team admin may change its exploration policy and nothing else of it", async () => {
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url, '/ui/teams', tokens.teamAdmin.token);
    const card = page.locator('section.team[data-team="search"]');
    await card.getByRole('button', { name: 'Change exploration policy' }).waitFor();
    for (const action of ['Change team', 'Delete team', 'Create team']) expect(await page.getByRole('button', { name: action }).count(), action).toBe(0);
    // A team admin lists the team's every key: the service key too.
    await card.locator('table.service-keys tr[data-key="search-indexer"]').waitFor();
    await card.getByRole('button', { name: 'Change exploration policy' }).click();
    const policy = card.getByRole('form', { name: 'Exploration policy of search' });
    await policy.getByLabel('Keys live at most (hours)').fill('2');
    await policy.getByRole('button', { name: 'Save policy' }).click();
    await card.locator('.team-exploration', { hasText: 'live at most 2 h' }).waitFor();
    expect(((await asAdmin('GET', '/admin/teams/search')).body.exploration as { max_ttl_s: number }).max_ttl_s).toBe(7_200);
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});
