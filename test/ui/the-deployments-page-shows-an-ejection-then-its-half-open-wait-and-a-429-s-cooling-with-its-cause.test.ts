import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { chromiumForThisFile } from '../support/chromium-browser.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { ADMIN_TOKEN, ask, openPage, screenshot, signIn } from './dashboard-helpers.js';

const { available, browser } = chromiumForThisFile();
let gateway: TestGateway;
const FLAKY = 'mock-openai/flaky?status=503&times=2';
const THROTTLED = 'mock-openai/throttled?status=429&retry_after=120';
const EJECT_S = 120;

beforeAll(async () => {
  if (!available) return;
  // The gateway runs in this process: its clock (Date) is moved past the ejection rather than waited out.
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
  mock-anthropic: { provider: mock, dialect: anthropic }
routes:
  flaky:
    retries: 0
    # No recovery probe: the mock answers again after two 503s, and a probe would readmit it before the page could show the wait.
    health: { consecutive_failures: 2, eject_base_s: ${EJECT_S}, recovery_probe_s: 0 }
    targets:
      - { connection: mock-openai, model: "flaky?status=503&times=2" }
      - { connection: mock-anthropic, model: standby }
  throttled:
    targets:
      - { connection: mock-openai, model: "throttled?status=429&retry_after=120" }
      - { connection: mock-anthropic, model: standby }
`);
}, 30_000);
afterAll(async () => {
  await gateway?.close();
  vi.useRealTimers();
});

it.skipIf(!available)('the open Deployments page turns the row to ejected by itself, then to half-open waiting for its trial once the ejection is over', async () => {
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

    // The ejection ends with no request to trial it: the row waits for the trial, never "ejected until" a past time.
    vi.setSystemTime(Date.now() + (EJECT_S + 1) * 1_000);
    await row.locator('.state', { hasText: 'half_open' }).waitFor({ timeout: 5_000 });
    const text = await row.textContent();
    expect(text).toContain('(was ejected)');
    expect(text).toContain('ejection time is up: waiting for its trial request');
    expect(text).toContain('trial due; last tried');
    expect(text).not.toContain('ejected until');
    expect(await row.locator('time').first().getAttribute('datetime')).toBeTruthy();
    await screenshot(page, 'deployments-half-open');
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});

it.skipIf(!available)('a deployment cooling after a 429 says so, with the Retry-After it was given', async () => {
  const { page, errors, close } = await openPage(browser());
  try {
    await ask(gateway.url, 'throttled');
    expect(gateway.mock.attemptsFor('throttled').map((attempt) => attempt.outcome)).toEqual(['status 429']);
    await signIn(page, gateway.url, '/ui/deployments');
    const row = page.locator(`tr[data-deployment="${THROTTLED}"]`);
    await row.locator('.state', { hasText: 'cooling' }).waitFor();
    const text = await row.textContent();
    expect(text).toContain('429 rate_limit, retry-after 120 s');
    expect(text).toContain('cooling until');
    expect(text).not.toContain('initial state');
    await screenshot(page, 'deployments-cooling');
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});
