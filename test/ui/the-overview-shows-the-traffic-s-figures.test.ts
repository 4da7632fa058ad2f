import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumForThisFile } from '../support/chromium-browser.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { ask, DASHBOARD_ROUTES, openPage, screenshot, signIn } from './dashboard-helpers.js';

const { available, browser } = chromiumForThisFile();
let gateway: TestGateway;

beforeAll(async () => {
  if (!available) return;
  gateway = await startGateway(DASHBOARD_ROUTES);
  for (const model of ['support', 'steady', 'steady', 'steady']) await ask(gateway.url, model);
}, 30_000);
afterAll(() => gateway?.close());

it.skipIf(!available)('shows non-zero requests, served, fallback, attempts, latency, tokens and spend, with a chart of each', async () => {
  expect(gateway.mock.attemptsFor('primary')).toHaveLength(1);
  expect(gateway.mock.attemptsFor('standby')).toHaveLength(1);
  expect(gateway.mock.attemptsFor('steady')).toHaveLength(3);
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const figure = async (name: string) => {
      const term = page.locator('.figures dt', { hasText: name });
      await term.waitFor();
      return (await term.locator('xpath=following-sibling::dd').textContent())!.trim();
    };
    await page.locator('.figures').waitFor();
    expect(await figure('Requests')).toBe('4');
    expect(await figure('Served')).toBe('4 (100.0 %)');
    expect(await figure('Refused by the gateway')).toBe('0 (0.0 %)');
    expect(await figure('Failed upstream')).toBe('0 (0.0 %)');
    expect(await figure('Fallback')).toBe('25.0 %');
    expect(await figure('Attempts per reached request')).toBe('1.25');
    expect(await figure('Tokens in / out')).toMatch(/^[1-9]\d* \/ [1-9]\d*$/);
    expect(await figure('Added latency p50 / p99')).toMatch(/^\d+ ms \/ \d+ ms$/);
    expect(await figure('First token p50')).toMatch(/^\d+ ms$/);
    expect(await figure('Spend')).toMatch(/^\$0\.0[1-9]/);
    for (const title of ['Requests per minute', 'Success and fallback share', 'Attempts per request that reached a provider', 'Latency', 'Tokens per minute', 'Spend']) {
      expect(await page.locator('.chart', { hasText: title }).locator('canvas').count(), title).toBe(1);
    }
    await screenshot(page, 'overview-with-traffic');

    await page.getByRole('button', { name: 'Last day' }).click();
    await page.waitForURL(/\/ui\/\?range=day$/);
    await page.locator('.figures').waitFor();
    expect(await figure('Requests')).toBe('4');
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});
