import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumForThisFile } from '../support/chromium-browser.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { ADMIN_TOKEN, openPage, screenshot, signIn } from './dashboard-helpers.js';

const { available, browser } = chromiumForThisFile();
let gateway: TestGateway;

beforeAll(async () => {
  if (!available) return;
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
  mock-anthropic: { provider: mock, dialect: anthropic }
routes:
  sturdy:
    targets:
      - { connection: mock-openai, model: gpt-sturdy }
      - { connection: mock-anthropic, model: claude-sturdy }
  alone: { retries: 0, targets: [{ connection: mock-openai, model: gpt-alone }] }
drills: { interval_s: 0 }
`);
}, 30_000);
afterAll(() => gateway?.close());

it.skipIf(!available)('Rehearse plays the config against every fault and shows a table per route, each failing cell a finding, with the advice', async () => {
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url, '/ui/drills');
    const section = page.locator('section[aria-labelledby="rehearsal-heading"]');
    await section.getByRole('button', { name: 'Rehearse' }).waitFor();
    await section.getByLabel('Routes').fill('alone');
    await section.getByRole('button', { name: 'Rehearse' }).click();
    await section.locator('.rehearsal-summary').waitFor({ timeout: 120_000 });
    expect(await section.locator('.rehearsal-summary').textContent()).toMatch(/16 scenarios in \d+\.\d s:\s+16 failed/);
    const alone = section.locator('article[data-route="alone"]');
    expect(await alone.locator('thead th').allTextContents()).toEqual(['Fault', '1. mock-openai/gpt-alone']);
    expect(await alone.locator('tbody tr').count()).toBe(16);
    expect(await alone.locator('td.finding').count()).toBe(16);
    expect(await alone.locator('td[data-fault="cut"]').textContent()).toMatch(/FAIL \d+\.\d s \(answered\)/);
    // Each piece of advice once, naming the scenarios it is for, as the command line's table does.
    const advice = (await alone.locator('.advice li').allTextContents()).map((line) => line.replace(/\s+/g, ' ').trim());
    expect(advice.find((line) => line.startsWith('add a fallback target, on another connection'))).toMatch(/^add a fallback target, on another connection \(rate_limit_short@1, .*model_gone@1\)$/);
    // Nothing reached the gateway's own mock: each scenario has one of its own.
    expect(gateway.mock.attempts).toHaveLength(0);
    await screenshot(page, 'drills-rehearsal');
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});
