import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumForThisFile } from '../support/chromium-browser.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { ADMIN_TOKEN, ask, openPage, screenshot, signIn } from './dashboard-helpers.js';

const { available, browser } = chromiumForThisFile();
let gateway: TestGateway;
const FLAKY = 'mock-openai/flaky?status=503&times=2';

beforeAll(async () => {
  if (!available) return;
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
  mock-anthropic: { provider: mock, dialect: anthropic }
routes:
  flaky:
    retries: 0
    health: { consecutive_failures: 2, eject_base_s: 120 }
    targets:
      - { connection: mock-openai, model: "flaky?status=503&times=2" }
      - { connection: mock-anthropic, model: standby }
`);
}, 30_000);
afterAll(() => gateway?.close());

it.skipIf(!available)('the open Deployments page turns the row to ejected by itself, highlighted, saying what it was', async () => {
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url, '/ui/deployments');
    const row = page.locator(`tr[data-deployment="${FLAKY}"]`);
    await row.waitFor();
    expect(await row.locator('.state').textContent()).toBe('healthy');

    // Two 503s in a row eject the primary; both requests are still answered by the standby.
    await ask(gateway.url, 'flaky');
    await ask(gateway.url, 'flaky');
    expect(gateway.mock.attemptsFor('flaky').map((attempt) => attempt.outcome)).toEqual(['status 503', 'status 503']);
    expect(gateway.mock.attemptsFor('standby')).toHaveLength(2);

    // No reload: the page polls every 2 s.
    await row.locator('.state', { hasText: 'ejected' }).waitFor({ timeout: 5_000 });
    expect(await row.getAttribute('class')).toContain('changed');
    expect(await row.textContent()).toContain('(was healthy)');
    expect(await row.textContent()).toContain('ejected until');
    await screenshot(page, 'deployments-ejected');
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});
