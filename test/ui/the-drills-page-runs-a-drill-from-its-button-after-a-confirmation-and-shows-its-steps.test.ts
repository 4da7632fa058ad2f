import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DrillRun } from '../../src/drills/drill-run.js';
import { chromiumForThisFile } from '../support/chromium-browser.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { ADMIN_TOKEN, openPage, screenshot, signIn } from './dashboard-helpers.js';

const { available, browser } = chromiumForThisFile();
let gateway: TestGateway;

beforeAll(async () => {
  if (!available) return;
  // The standby answers after 2.5 s, so each of its steps is long enough to be seen in progress.
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
  mock-anthropic: { provider: mock, dialect: anthropic }
routes:
  support:
    retries: 0
    targets:
      - { connection: mock-openai, model: "primary?status=503" }
      - { connection: mock-anthropic, model: "standby?headers_delay_ms=2500" }
drills: { interval_s: 0, routes: [support] }
`);
}, 30_000);
afterAll(() => gateway?.close());

it.skipIf(!available)('Run drill asks first, then runs the drill and lists every step it ran, the failing primary as a finding', async () => {
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url, '/ui/drills');
    await page.getByText('No drill has run yet.').waitFor();
    await page.getByRole('button', { name: 'Run drill' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run the fallback drill?' });
    await dialog.waitFor();
    // Cancel sends nothing.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(gateway.mock.attemptsFor('primary')).toHaveLength(0);

    await page.getByRole('button', { name: 'Run drill' }).click();
    await dialog.getByRole('button', { name: 'Run drill' }).click();
    // While it runs, the page reads its progress: the steps done so far appear before it ends.
    await page.getByRole('status').filter({ hasText: /drill running — [12] steps? so far/ }).waitFor({ timeout: 10_000 });
    expect(await page.locator('section[aria-labelledby="drill-heading"] tbody tr').count()).toBeGreaterThan(0);
    expect(await page.getByRole('button', { name: 'Run drill' }).isDisabled()).toBe(true);
    const summary = page.locator('section[aria-labelledby="drill-heading"] > p');
    await summary.filter({ hasText: /finished \d.*\d+ steps/ }).waitFor({ timeout: 30_000 });

    const response = await fetch(`${gateway.url}/admin/drills`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const run = (await response.json()) as DrillRun;
    expect(run.finished_at).not.toBeNull();
    // The drill really ran: the provider saw the primary's step, and the page shows every step the gateway kept.
    expect(gateway.mock.attemptsFor('primary').length).toBeGreaterThan(0);
    const rows = page.locator('section[aria-labelledby="drill-heading"] tbody tr');
    expect(await rows.count()).toBe(run.steps.length);
    for (const [index, step] of run.steps.entries()) {
      const text = await rows.nth(index).textContent();
      expect(text).toContain(`${step.step} ${step.position}`);
      expect(text).toContain(`${step.connection}/${step.model}`);
      expect(text).toContain(step.result);
    }
    const failing = run.steps.filter((step) => step.model.startsWith('primary'));
    expect(failing.map((step) => step.result)).toEqual(['server_error']);
    expect(await page.locator('section[aria-labelledby="drill-heading"] tbody tr.finding').count()).toBe(1);
    expect(await summary.textContent()).toContain('1 finding');
    await screenshot(page, 'drills-after-a-run');
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});
