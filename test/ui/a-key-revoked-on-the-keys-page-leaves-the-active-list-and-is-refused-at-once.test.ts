import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumForThisFile } from '../support/chromium-browser.js';
import { postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { DASHBOARD_ROUTES, openPage, screenshot, signIn } from './dashboard-helpers.js';

const { available, browser } = chromiumForThisFile();
let gateway: TestGateway;

beforeAll(async () => {
  if (available) gateway = await startGateway(`auth: { mode: keys }\n${DASHBOARD_ROUTES}`);
}, 30_000);
afterAll(() => gateway?.close());

const askWith = (key: string) => postChat(gateway.url, { model: 'steady', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${key}` });

it.skipIf(!available)('creates a key (its secret shown once), shows its spend against its budget, and revokes it after a confirmation', async () => {
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url, '/ui/keys');
    await page.getByText('No active key yet.').waitFor();
    await page.getByLabel('Name').fill('team-a');
    await page.getByLabel('Budget (USD)').fill('5');
    await page.getByLabel('Requests per minute').fill('60');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.locator('#new-secret').textContent())!;
    expect(secret).toMatch(/^sk-sy-/);
    await page.getByRole('button', { name: 'Copy' }).waitFor();
    expect((await askWith(secret)).status).toBe(200);
    expect(gateway.mock.attemptsFor('steady')).toHaveLength(1);

    await page.getByRole('button', { name: 'Done' }).click();
    // Dismissed, the secret is nowhere in the page or its storage.
    expect(await page.content()).not.toContain(secret);
    expect(await page.evaluate<string>('JSON.stringify({ ...sessionStorage, ...localStorage })')).not.toContain('sk-sy-');

    await page.reload();
    const row = page.locator('tr[data-key="team-a"]');
    await row.locator('.budget').waitFor();
    expect(await row.locator('[role="meter"]').getAttribute('aria-valuetext')).toMatch(/^\$0\.\d+ of \$5\.00$/);
    expect(await row.textContent()).toContain('60 rpm');
    await screenshot(page, 'keys');

    await row.getByRole('button', { name: 'Revoke' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke “team-a”?' });
    await dialog.waitFor();
    // Cancelling keeps the key.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await row.count()).toBe(1);
    expect((await askWith(secret)).status).toBe(200);

    await row.getByRole('button', { name: 'Revoke' }).click();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await row.waitFor({ state: 'detached' });
    await page.getByText('No active key yet.').waitFor();
    const refused = await askWith(secret);
    expect(refused.status).toBe(401);
    expect(gateway.mock.attemptsFor('steady')).toHaveLength(2);

    await page.getByLabel('Show revoked and expired keys').check();
    expect(await page.locator('tr[data-key="team-a"]').textContent()).toContain('revoked');
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});
