import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AdminStatsResponse } from '../../src/admin/admin-api-types.js';
import { adminCall, createTeamKey } from '../support/admin-calls.js';
import { chromiumForThisFile, waitForExpression } from '../support/chromium-browser.js';
import { postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { ADMIN_TOKEN, DASHBOARD_ROUTES, openPage, screenshot, signIn } from './dashboard-helpers.js';

const { available, browser } = chromiumForThisFile();
let gateway: TestGateway;
const teams: Record<'search' | 'ads', string> = { search: '', ads: '' };
let memberToken: string;
/** Requests sent with each team's key, and with a key of no team. */
const SENT = { search: 3, ads: 2, none: 1 };

const asAdmin = (method: string, path: string, body?: unknown) => adminCall(gateway.url, method, path, { token: ADMIN_TOKEN, ...(body === undefined ? {} : { body }) });

beforeAll(async () => {
  if (!available) return;
  gateway = await startGateway(`auth: { mode: keys }\n${DASHBOARD_ROUTES}`);
  for (const name of ['search', 'ads'] as const) {
    const answer = await asAdmin('POST', '/admin/teams', { name });
    expect(answer.status, answer.text).toBe(201);
    teams[name] = answer.body.id as string;
  }
  const keys = {
    search: (await createTeamKey(gateway.url, { name: 'search-indexer', team: 'search' }, ADMIN_TOKEN)).key,
    ads: (await createTeamKey(gateway.url, { name: 'ads-ranker', team: 'ads' }, ADMIN_TOKEN)).key,
    none: (await createTeamKey(gateway.url, { name: 'platform-probe' }, ADMIN_TOKEN)).key,
  };
  for (const [owner, count] of Object.entries(SENT) as [keyof typeof SENT, number][]) {
    for (let index = 0; index < count; index++) {
      const response = await postChat(gateway.url, { model: 'steady', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${keys[owner]}` });
      expect(response.status).toBe(200);
      await response.text();
    }
  }
  const member = await asAdmin('POST', '/admin/tokens', { name: 'Mia', role: 'member', team: 'search' });
  memberToken = member.body.token as string;
  // Records are written off the request path: the figures count them once they are stored.
  await eventually(async () => ((await asAdmin('GET', '/admin/stats')).body as unknown as AdminStatsResponse).totals.requests === 6, 10_000, 'the six requests in the figures');
}, 60_000);
afterAll(() => gateway?.close());

/** Waits until the Overview's figure `name` reads `value`. */
function figureReads(page: Page, name: string, value: string): Promise<void> {
  return page
    .locator('.figures .figure', { has: page.locator('dt', { hasText: name }) })
    .locator('dd', { hasText: new RegExp(`^${value}$`) })
    .waitFor();
}

const requestRows = (page: Page) => page.locator('table.requests tbody tr');

it.skipIf(!available)("the Overview counts one team's requests once it is chosen, says which figures stay every team's, and keeps the team in its URL", async () => {
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url);
    await figureReads(page, "Callers' requests", '6');
    const note = page.getByRole('note');
    expect(await note.count()).toBe(0);
    const choice = page.getByLabel('Team');
    expect(await choice.locator('option').allTextContents()).toEqual(['All teams', 'search', 'ads']);

    await choice.selectOption({ label: 'search' });
    await page.waitForURL(new RegExp(`/ui/\\?team=${teams.search}$`));
    await figureReads(page, "Callers' requests", String(SENT.search));
    expect(await note.textContent()).toContain("Latency and first-token percentiles, failing deployments and By provider count every team's requests");
    await screenshot(page, 'overview-one-team');
    await page.reload();
    await figureReads(page, "Callers' requests", String(SENT.search));
    expect(await page.getByLabel('Team').inputValue()).toBe(teams.search);

    // The range keeps the team, and the team the range.
    await page.getByRole('button', { name: 'Last day' }).click();
    await page.waitForURL(new RegExp(`/ui/\\?range=day&team=${teams.search}$`));
    await figureReads(page, "Callers' requests", String(SENT.search));
    await page.getByLabel('Team').selectOption({ label: 'ads' });
    await page.waitForURL(new RegExp(`/ui/\\?range=day&team=${teams.ads}$`));
    await figureReads(page, "Callers' requests", String(SENT.ads));
    // The two teams' and the request of no team's key add up to every request.
    expect(SENT.search + SENT.ads + SENT.none).toBe(6);
    await page.getByLabel('Team').selectOption({ label: 'All teams' });
    await page.waitForURL(/\/ui\/\?range=day$/);
    await figureReads(page, "Callers' requests", '6');
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});

it.skipIf(!available)("the Requests page lists one team's requests with the team chosen among its filters, and a reload keeps them", async () => {
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url, '/ui/requests');
    await waitForExpression(page, "document.querySelectorAll('table.requests tbody tr').length === 6");
    await page.getByLabel('Team').selectOption({ label: 'search' });
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(new RegExp(`/ui/requests\\?team=${teams.search}$`));
    await waitForExpression(page, `document.querySelectorAll('table.requests tbody tr').length === ${SENT.search}`);
    const keyColumn = async () => requestRows(page).evaluateAll((rows) => rows.map((row) => row.lastElementChild?.textContent?.trim()));
    expect(await keyColumn()).toEqual(Array(SENT.search).fill('search-indexer'));
    await page.reload();
    await waitForExpression(page, `document.querySelectorAll('table.requests tbody tr').length === ${SENT.search}`);
    expect(await page.getByLabel('Team').inputValue()).toBe(teams.search);
    expect(await keyColumn()).toEqual(Array(SENT.search).fill('search-indexer'));

    await page.getByLabel('Team').selectOption({ label: 'ads' });
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(new RegExp(`/ui/requests\\?team=${teams.ads}$`));
    await waitForExpression(page, `document.querySelectorAll('table.requests tbody tr').length === ${SENT.ads}`);
    expect(await keyColumn()).toEqual(Array(SENT.ads).fill('ads-ranker'));
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});

it.skipIf(!available)("a member's Overview and Requests are its team's alone, and its team is all the filter offers", async () => {
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url, '/ui/', memberToken);
    await figureReads(page, "Callers' requests", String(SENT.search));
    // Its figures are narrowed without a choice: the page says which stay every team's.
    await page.getByRole('note').waitFor();
    expect(await page.getByLabel('Team').locator('option').allTextContents()).toEqual(['All teams', 'search']);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Requests' }).click();
    await waitForExpression(page, `document.querySelectorAll('table.requests tbody tr').length === ${SENT.search}`);
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});
