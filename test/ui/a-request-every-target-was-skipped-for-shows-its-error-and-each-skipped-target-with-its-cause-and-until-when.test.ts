import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumForThisFile } from '../support/chromium-browser.js';
import { postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { ADMIN_TOKEN, openPage, screenshot, signIn } from './dashboard-helpers.js';

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
  throttled:
    targets:
      - { connection: mock-openai, model: "slow-down?status=429&retry_after=120" }
      - { connection: mock-anthropic, model: "slow-down-too?status=429&retry_after=120" }
`);
  // Both targets answer 429 and cool for two minutes; the next request reaches neither.
  for (let sent = 0; sent < 2; sent++) {
    const response = await postChat(gateway.url, { model: 'throttled', messages: [{ role: 'user', content: 'hi' }] });
    await response.text();
    expect(response.status).toBe(429);
    requestId = response.headers.get('x-request-id')!;
  }
}, 30_000);
afterAll(() => gateway?.close());

it.skipIf(!available)("the request page of a request whose every target was cooling shows the error the caller got, no attempt, and each target with its cause and until when", async () => {
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url, `/ui/requests/${requestId}`);
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    const error = page.locator('dl.summary div', { has: page.locator('dt', { hasText: /^Error$/ }) }).locator('dd');
    expect(await error.textContent()).toBe('rate_limit_error rate_limit_exceeded: every target of this route is rate limited (skipped: cooling ×2)');
    expect((await page.locator('section.timeline p').first().textContent())!.replace(/\s+/g, ' ')).toContain('No provider was called: every target of the route was passed over');
    expect(await page.locator('[aria-label^="attempt" i]').count()).toBe(0);

    const skipped = page.getByRole('list', { name: 'Skipped targets' }).getByRole('listitem');
    const texts = (await skipped.allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim());
    expect(texts).toHaveLength(2);
    expect(texts[0]).toContain('skipped: mock-openai/slow-down?status=429&retry_after=120 — cooling (rate_limit) until');
    expect(texts[1]).toContain('skipped: mock-anthropic/slow-down-too?status=429&retry_after=120 — cooling (rate_limit) until');
    for (const text of texts) expect(text).toMatch(/until \d{1,2}:\d{2}:\d{2}.*\(in (1 min( \d+ s)?|2 min)\)/);
    await screenshot(page, 'request-every-target-skipped');
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});
