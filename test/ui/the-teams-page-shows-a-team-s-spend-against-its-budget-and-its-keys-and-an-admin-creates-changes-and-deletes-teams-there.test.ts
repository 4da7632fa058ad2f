import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KeyView, TeamSpendView, TeamView } from '../../src/admin/admin-api-types.js';
import { adminCall, createTeamKey } from '../support/admin-calls.js';
import { chromiumForThisFile } from '../support/chromium-browser.js';
import { sendTeamTraffic } from '../support/dashboard-traffic.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { ADMIN_TOKEN, DASHBOARD_ROUTES, openPage, screenshot, signIn } from './dashboard-helpers.js';

const { available, browser } = chromiumForThisFile();
let gateway: TestGateway;
let teamId: string;

const asAdmin = (method: string, path: string, body?: unknown) => adminCall(gateway.url, method, path, { token: ADMIN_TOKEN, ...(body === undefined ? {} : { body }) });

beforeAll(async () => {
  if (!available) return;
  gateway = await startGateway(`auth: { mode: keys }\n${DASHBOARD_ROUTES}`);
  ({ teamId } = await sendTeamTraffic(gateway.url));
  // An exploration key a member made for themselves: its owner is the member's token.
  const member = await asAdmin('POST', '/admin/tokens', { name: 'Mia (search)', role: 'member', team: 'search' });
  expect(member.status, member.text).toBe(201);
  await createTeamKey(gateway.url, { name: 'mia-tries-rerank', team: 'search', kind: 'exploration' }, member.body.token as string);
  // The ledger is written off the request path: the spend is there once it is.
  await eventually(async () => ((await asAdmin('GET', '/admin/teams/search/spend')).body as unknown as TeamSpendView).usd > 0, 10_000, "the team's spend");
}, 60_000);
afterAll(() => gateway?.close());

it.skipIf(!available)("shows the team's spend against its budget, its limits, routes and policy, and its service and exploration keys apart with each one's owner and expiry", async () => {
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url, '/ui/teams');
    const card = page.locator('section.team[data-team="search"]');
    const meter = card.locator('.team-spend [role="meter"]');
    await meter.waitFor();
    const spend = (await asAdmin('GET', `/admin/teams/${teamId}/spend`)).body as unknown as TeamSpendView;
    expect(spend.budget_usd).toBe(5);
    expect(Number(await meter.getAttribute('aria-valuenow'))).toBe(spend.usd);
    expect(await meter.getAttribute('aria-valuemax')).toBe('5');
    expect(await card.locator('.team-spend').textContent()).toMatch(/of \$5\.00 \/ day/);
    const text = (await card.textContent())!.replace(/\s+/g, ' ');
    expect(text).toContain('600 rpm');
    expect(text).toContain('steady, support');
    expect(await card.locator('.team-exploration').textContent()).toBe('live at most 1 d; $1.00 / day each');

    const keys = ((await asAdmin('GET', '/admin/keys')).body.data as unknown as KeyView[]).filter((key) => key.team === teamId);
    expect(await card.locator('table.service-keys tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-key')))).toEqual(['search-indexer']);
    expect(await card.locator('table.exploration-keys tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-key')))).toEqual(['try-reranker', 'mia-tries-rerank']);
    const owners = await card.locator('table.exploration-keys .key-owner').allTextContents();
    expect(owners).toEqual(['admin.token (you)', 'Mia (search)']);
    for (const name of ['try-reranker', 'mia-tries-rerank']) {
      const key = keys.find((candidate) => candidate.name === name)!;
      const expiry = card.locator(`table.exploration-keys tr[data-key="${name}"] .key-expiry time`);
      // The absolute time on hover and in `datetime`, with how far off it is beside it.
      expect(await expiry.getAttribute('datetime')).toBe(key.expires_at);
      expect(await expiry.locator('.muted').textContent()).toMatch(/^\(.+\)$/);
    }
    await screenshot(page, 'teams');
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});

it.skipIf(!available)("an admin creates a team, changes its budget, limits, routes and exploration policy, is told a bad field by name, and deletes it; a team with keys is refused with the gateway's message", async () => {
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url, '/ui/teams');
    const create = page.getByRole('form', { name: 'Create a team' });
    await create.getByLabel('Name').fill('ads');
    await create.getByLabel('Budget (USD)').fill('2');
    await create.getByLabel('Requests per minute').fill('100');
    await create.getByRole('button', { name: 'Create team' }).click();
    const card = page.locator('section.team[data-team="ads"]');
    await card.waitFor();
    const ads = () => asAdmin('GET', '/admin/teams/ads').then((answer) => answer.body as unknown as TeamView);
    expect(await ads()).toMatchObject({ budget: { usd: 2, period: 'month' }, limits: { rpm: 100, tpm: null }, routes: null });

    await card.getByRole('button', { name: 'Change team' }).click();
    const change = card.getByRole('form', { name: 'Change team ads' });
    // What the form holds is the team as it is.
    expect(await change.getByLabel('Budget (USD)').inputValue()).toBe('2');
    await change.getByLabel('Budget (USD)').fill('0');
    await change.getByRole('button', { name: 'Save team' }).click();
    await change.getByRole('alert').filter({ hasText: 'budget.usd' }).waitFor();
    await change.getByLabel('Budget (USD)').fill('3');
    await change.getByLabel('Budget period').selectOption('day');
    await change.getByLabel('Requests per minute').fill('');
    await change.getByLabel('Tokens per minute').fill('5000');
    await change.getByLabel('Routes').fill('steady');
    await change.getByRole('button', { name: 'Save team' }).click();
    await change.waitFor({ state: 'detached' });
    await card.locator('.team-spend', { hasText: 'of $3.00 / day' }).waitFor();
    expect(await ads()).toMatchObject({ budget: { usd: 3, period: 'day' }, limits: { rpm: null, tpm: 5000 }, routes: ['steady'] });

    await card.getByRole('button', { name: 'Change exploration policy' }).click();
    const policy = card.getByRole('form', { name: 'Exploration policy of ads' });
    expect(await policy.getByLabel('Keys live at most (hours)').inputValue()).toBe('168');
    await policy.getByLabel('Keys live at most (hours)').fill('12');
    await policy.getByLabel('Requests per minute').fill('10');
    await policy.getByRole('button', { name: 'Save policy' }).click();
    await card.locator('.team-exploration', { hasText: 'live at most 12 h; 10 rpm' }).waitFor();
    expect((await ads()).exploration).toEqual({ max_ttl_s: 43_200, limits: { rpm: 10, tpm: null }, budget: null });

    // A team with active keys stays, and the page says why in the gateway's words.
    const search = page.locator('section.team[data-team="search"]');
    await search.getByRole('button', { name: 'Delete team' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete team “search”?' });
    await dialog.getByRole('button', { name: 'Delete team' }).click();
    const refusal = await search.getByRole('alert').textContent();
    expect(refusal).toContain('Team search still has 3 active keys (neither revoked nor expired): revoke them before deleting the team.');
    expect((await asAdmin('GET', '/admin/teams/search')).status).toBe(200);

    await card.getByRole('button', { name: 'Delete team' }).click();
    await page.getByRole('dialog', { name: 'Delete team “ads”?' }).getByRole('button', { name: 'Delete team' }).click();
    await card.waitFor({ state: 'detached' });
    expect((await asAdmin('GET', '/admin/teams/ads')).status).toBe(404);
    await screenshot(page, 'teams-after-changes');
    expect(errors.filter((error) => !/status of (400|409)/.test(error))).toEqual([]);
  } finally {
    await close();
  }
});
