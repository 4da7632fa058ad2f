import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumForThisFile } from '../support/chromium-browser.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { ADMIN_TOKEN, ask, openPage, screenshot, signIn } from './dashboard-helpers.js';

const { available, browser } = chromiumForThisFile();
let gateway: TestGateway;
let requestId: string;

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
      - { connection: mock-openai, model: "flaky?status=503" }
      - { connection: mock-anthropic, model: standby }
`);
  // Two 503s eject the primary; the third request goes straight to the standby.
  await ask(gateway.url, 'flaky');
  await ask(gateway.url, 'flaky');
  requestId = await ask(gateway.url, 'flaky');
}, 30_000);
afterAll(() => gateway?.close());

it.skipIf(!available)('the timeline lists the ejected primary below the bars as skipped, with the failure that ejected it and until when, and it is no attempt', async () => {
  expect(gateway.mock.attemptsFor('flaky').map((attempt) => attempt.outcome)).toEqual(['status 503', 'status 503']);
  expect(gateway.mock.attemptsFor('standby')).toHaveLength(3);
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url, `/ui/requests/${requestId}`);
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();

    // One attempt bar: the skipped primary has no bar and no label beginning with "attempt".
    const labelled = page.locator('[aria-label^="attempt" i]');
    expect(await labelled.evaluateAll((elements) => elements.map((element) => element.getAttribute('aria-label')))).toEqual(['attempt 1: ok mock-anthropic/standby']);

    const skipped = page.getByRole('list', { name: 'Skipped targets' }).getByRole('listitem');
    expect(await skipped.count()).toBe(1);
    const text = (await skipped.textContent())!.replace(/\s+/g, ' ');
    // With the failure that ejected it.
    expect(text).toContain('skipped: mock-openai/flaky?status=503 — ejected (server_error) until');
    // The end of the ejection, in the browser's zone, with how far off it is to the second ("in 1 min 59 s").
    expect(text).toMatch(/until \d{1,2}:\d{2}:\d{2}/);
    expect(text).toMatch(/\(in (1 min( \d+ s)?|2 min)\)/);
    // Below the bars.
    const [bar, item] = await Promise.all([labelled.first().boundingBox(), skipped.boundingBox()]);
    expect(item!.y).toBeGreaterThan(bar!.y + bar!.height);
    await screenshot(page, 'request-timeline-skipped');
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});
