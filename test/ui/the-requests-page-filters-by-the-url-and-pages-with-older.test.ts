import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumForThisFile } from '../support/chromium-browser.js';
import { postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { ask, DASHBOARD_ROUTES, openPage, signIn } from './dashboard-helpers.js';

const { available, browser } = chromiumForThisFile();
let gateway: TestGateway;
const steadyIds: string[] = [];

beforeAll(async () => {
  if (!available) return;
  gateway = await startGateway(DASHBOARD_ROUTES);
  // One more than a page.
  for (let index = 0; index < 51; index++) steadyIds.push(await ask(gateway.url, 'steady'));
  await ask(gateway.url, 'support');
  expect((await postChat(gateway.url, { model: 'steady', messages: 'not a list' })).status).toBe(400);
}, 60_000);
afterAll(() => gateway?.close());

it.skipIf(!available)('filters by route and status from the form into the URL, and pages on with Older', async () => {
  expect(gateway.mock.attemptsFor('steady')).toHaveLength(51);
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url, '/ui/requests');
    await page.getByLabel('Route').fill('steady');
    await page.getByLabel('Status').selectOption('ok');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/\/ui\/requests\?route=steady&status=ok$/);
    const ids = () => page.locator('tbody th a').allTextContents();
    await page.locator('tbody tr').nth(49).waitFor();
    const newest = [...steadyIds].reverse();
    expect(await ids()).toEqual(newest.slice(0, 50));

    await page.getByRole('link', { name: 'Older' }).click();
    await page.waitForURL(new RegExp(`before=${newest[49]}$`));
    await page.locator('tbody tr').first().waitFor();
    expect(await ids()).toEqual(newest.slice(50));
    expect(await page.getByRole('link', { name: 'Older' }).count()).toBe(0);

    // The filtered, paged list is a link: a reload shows the same.
    await page.reload();
    await page.locator('tbody tr').first().waitFor();
    expect(await ids()).toEqual(newest.slice(50));

    await page.goto(`${gateway.url}/ui/requests?status=rejected`);
    await page.locator('tbody tr').first().waitFor();
    expect(await page.locator('tbody tr').count()).toBe(1);
    expect(await page.locator('tbody tr').textContent()).toContain('rejected');
    await page.goto(`${gateway.url}/ui/requests?origin=caller&route=support`);
    await page.locator('tbody tr').first().waitFor();
    expect(await page.locator('tbody tr').textContent()).toContain('fallback');
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});
