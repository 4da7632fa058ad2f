import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumForThisFile } from '../support/chromium-browser.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { DASHBOARD_ROUTES, openPage, screenshot } from './dashboard-helpers.js';

const { available, browser } = chromiumForThisFile();
let gateway: TestGateway;

beforeAll(async () => {
  if (available) gateway = await startGateway(DASHBOARD_ROUTES);
}, 30_000);
afterAll(() => gateway?.close());

it.skipIf(!available)('says the token was refused, keeps the form, stores nothing, and lets the right token in after', async () => {
  const { page, errors, close } = await openPage(browser());
  try {
    await page.goto(`${gateway.url}/ui/keys`);
    const field = page.getByLabel('Admin token');
    await field.fill('not-the-token');
    await field.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'refused' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toBe('The gateway refused this admin token. Enter the admin.token of its config.');
    expect(await page.getByRole('navigation', { name: 'Dashboard' }).count()).toBe(0);
    expect(await page.evaluate<number>('sessionStorage.length')).toBe(0);
    await screenshot(page, 'sign-in-refused');

    await field.fill('dashboard-admin-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Keys' }).waitFor();
    // The browser logs the refused check's 401 itself; the page's own code logged nothing.
    expect(errors.filter((error) => !error.includes('status of 401'))).toEqual([]);
  } finally {
    await close();
  }
});
