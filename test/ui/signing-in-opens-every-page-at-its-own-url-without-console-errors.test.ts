import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumForThisFile } from '../support/chromium-browser.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { ask, DASHBOARD_ROUTES, openPage, screenshot, signIn } from './dashboard-helpers.js';

const { available, browser } = chromiumForThisFile();
let gateway: TestGateway;

beforeAll(async () => {
  if (!available) return;
  gateway = await startGateway(DASHBOARD_ROUTES);
  await ask(gateway.url, 'support');
  await ask(gateway.url, 'steady');
}, 30_000);
afterAll(() => gateway?.close());

const PAGES = [
  { link: 'Overview', path: '/ui/', heading: 'Overview' },
  { link: 'Deployments', path: '/ui/deployments', heading: 'Deployments' },
  { link: 'Requests', path: '/ui/requests', heading: 'Requests' },
  { link: 'Keys', path: '/ui/keys', heading: 'Keys' },
  { link: 'Teams', path: '/ui/teams', heading: 'Teams' },
  { link: 'Drills', path: '/ui/drills', heading: 'Drills' },
  { link: 'Audit', path: '/ui/audit', heading: 'Audit' },
];

it.skipIf(!available)('signs in with the token, links to every page by name, and each page has its own URL that survives a reload', async () => {
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url);
    const navigation = page.getByRole('navigation', { name: 'Dashboard' });
    expect(await navigation.getByRole('link').allTextContents()).toEqual(PAGES.map((entry) => entry.link));
    for (const entry of PAGES) {
      await navigation.getByRole('link', { name: entry.link, exact: true }).click();
      await page.getByRole('heading', { level: 1, name: entry.heading }).waitFor();
      expect(new URL(page.url()).pathname).toBe(entry.path);
      expect(await navigation.getByRole('link', { name: entry.link, exact: true }).getAttribute('aria-current')).toBe('page');
      // A reload (or a link pasted into another tab of the session) opens the same page.
      await page.reload();
      await page.getByRole('heading', { level: 1, name: entry.heading }).waitFor();
      await page.waitForLoadState('networkidle');
      await screenshot(page, `page-${entry.link.toLowerCase()}`);
    }
    // The token is kept for the session only, and nothing else is stored.
    const stored = await page.evaluate('({ session: Object.keys(sessionStorage), local: Object.keys(localStorage), cookie: document.cookie })');
    expect(stored).toEqual({ session: ['switchyard.admin-token'], local: [], cookie: '' });
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});

it.skipIf(!available)('is usable on a narrow screen with the keyboard alone', async () => {
  const { page, errors, close } = await openPage(browser(), { width: 390, height: 800 });
  try {
    await page.goto(`${gateway.url}/ui/requests`);
    // The one field has the focus from the start.
    await page.getByLabel('Admin token').waitFor();
    expect(await page.evaluate<string>('document.activeElement?.id')).toBe('admin-token');
    await page.keyboard.type('dashboard-admin-token');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Requests' }).waitFor();
    // The nav fits: no sideways scrolling of the whole page.
    expect(await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    // Tabbing reaches the request links.
    let reached = false;
    for (let presses = 0; presses < 40 && !reached; presses++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate<boolean>("document.activeElement?.textContent?.startsWith('req_') ?? false");
    }
    expect(reached).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    await screenshot(page, 'narrow-request');
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});
