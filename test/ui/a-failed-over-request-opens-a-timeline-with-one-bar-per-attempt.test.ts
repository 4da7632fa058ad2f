import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumForThisFile } from '../support/chromium-browser.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { ask, DASHBOARD_ROUTES, openPage, screenshot, signIn } from './dashboard-helpers.js';

const { available, browser } = chromiumForThisFile();
let gateway: TestGateway;
let requestId: string;

beforeAll(async () => {
  if (!available) return;
  gateway = await startGateway(DASHBOARD_ROUTES);
  await ask(gateway.url, 'steady');
  requestId = await ask(gateway.url, 'support', { stream: true });
}, 30_000);
afterAll(() => gateway?.close());

it.skipIf(!available)('clicking the request id shows two attempt bars on one axis, labelled with their kinds and targets', async () => {
  expect(gateway.mock.attemptsFor('primary').map((attempt) => attempt.outcome)).toEqual(['status 503']);
  expect(gateway.mock.attemptsFor('standby').map((attempt) => attempt.outcome)).toEqual(['ok']);
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url, '/ui/requests');
    await page.getByRole('link', { name: requestId, exact: true }).click();
    await page.waitForURL(`**/ui/requests/${requestId}`);
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();

    // Only the attempt bars carry labels that begin with "attempt".
    const labelled = page.locator('[aria-label^="attempt" i]');
    expect(await labelled.evaluateAll((elements) => elements.map((element) => element.getAttribute('aria-label')))).toEqual([
      'attempt 1: server_error mock-openai/primary?status=503',
      'attempt 2: ok mock-anthropic/standby',
    ]);
    expect(await labelled.evaluateAll((elements) => elements.every((element) => element.classList.contains('bar')))).toBe(true);
    // The same bars are what assistive technology finds by name.
    await page.getByRole('button', { name: 'attempt 2: ok mock-anthropic/standby' }).waitFor();

    // One time axis: the standby's bar starts where the primary's ended, or after.
    const [first, second] = await Promise.all([labelled.nth(0).boundingBox(), labelled.nth(1).boundingBox()]);
    expect(second!.x).toBeGreaterThanOrEqual(first!.x + first!.width - 1);
    // The served attempt has its commit mark; the failed one says why the gateway moved on.
    expect(await page.locator('.lane').nth(1).locator('.mark.commit').count()).toBe(1);
    expect(await page.locator('.lane').nth(0).locator('.mark.commit').count()).toBe(0);
    // The streamed answer's first token is marked on its bar; the 503 sent none.
    expect(await page.locator('.lane').nth(1).locator('.mark.first-token').count()).toBe(1);
    expect(await page.locator('.lane').nth(0).locator('.mark.first-token').count()).toBe(0);
    const rows = page.locator('.timeline tbody tr');
    expect(await rows.nth(0).textContent()).toContain('server_error');
    expect(await rows.nth(0).textContent()).toContain('503');
    expect(await rows.nth(1).textContent()).toContain('served the answer');
    expect(await rows.nth(1).textContent()).toMatch(/\$0\.\d+/);
    await screenshot(page, 'request-timeline');

    // The timeline's URL is a deep link.
    await page.reload();
    // The page reads the record after it loads: the bars are there once it has.
    await page.getByRole('button', { name: 'attempt 2: ok mock-anthropic/standby' }).waitFor();
    expect(await page.locator('[aria-label^="attempt" i]').count()).toBe(2);
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});
