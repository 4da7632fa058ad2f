import { beforeAll, expect, it } from 'vitest';
import type { AdminRequestsResponse, AdminStatsResponse } from '../../src/admin/admin-api-types.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { chromiumForThisFile } from '../support/chromium-browser.js';
import { adminCall } from '../support/dashboard-traffic.js';
import { incidentGatewayForThisFile, openPage, screenshot, signIn } from './dashboard-helpers.js';

const { available, browser } = chromiumForThisFile();
const incident = incidentGatewayForThisFile(available);
/** Ejected by the callers' 503s, then probed by the gateway every couple of seconds: callers' and probes' attempts differ. */
const PRIMARY = 'mock-openai/primary?status=503';

beforeAll(async () => {
  if (!available) return;
  const probesOfThePrimary = `/admin/requests?origin=probe&route=${encodeURIComponent(PRIMARY)}`;
  await eventually(async () => (await adminCall<AdminRequestsResponse>(incident.gateway().url, 'GET', probesOfThePrimary)).data.length > 0, 20_000, 'a recovery probe of the ejected primary');
}, 60_000);

it.skipIf(!available)("the Overview and the Deployments page show the same failed / attempts of a deployment for the callers' last hour, each saying whose attempts they count", async () => {
  const gateway = incident.gateway();
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url, '/ui/');
    const overviewRow = page.locator(`table.failing tr[data-deployment="${PRIMARY}"]`);
    const overviewFigure = (await overviewRow.locator('td').first().textContent())!.trim();
    const [failed, attempts] = overviewFigure.split(' / ').map(Number);
    expect(attempts).toBeGreaterThan(0);
    expect(await page.locator('#failing-heading').textContent()).toBe("Failing deployments, callers' attempts");
    for (const heading of ['#outcomes-heading', '#by-route-heading', '#by-provider-heading']) expect(await page.locator(heading).textContent(), heading).toContain("callers'");

    await page.getByRole('link', { name: 'Deployments' }).click();
    await page.waitForURL(/\/ui\/deployments$/);
    expect(await page.locator('thead th', { hasText: 'Last hour' }).textContent()).toBe("Last hour, callers' attempts");
    const counts = page.locator(`tr[data-deployment="${PRIMARY}"] .attempt-counts`);
    await counts.waitFor();
    expect((await counts.textContent())!.replace(/\s+/g, ' ').trim()).toBe(`${attempts} / ${failed} failed`);
    await screenshot(page, 'deployments-callers');

    // Every origin's last hour counts the gateway's probes of the ejected primary as well, and says so.
    await page.getByRole('button', { name: "every origin's attempts" }).click();
    await page.waitForURL(/\/ui\/deployments\?origin=all$/);
    expect(await page.locator('thead th', { hasText: 'Last hour' }).textContent()).toBe("Last hour, every origin's attempts");
    const allCounts = page.locator(`tr[data-deployment="${PRIMARY}"] .attempt-counts`);
    await allCounts.waitFor();
    const shown = Number((await allCounts.textContent())!.split(' / ')[0]);
    expect(shown).toBeGreaterThan(attempts!);
    // Read after the page read its figure: the probes since can only have added to it.
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const everyOrigin = await adminCall<AdminStatsResponse>(gateway.url, 'GET', `/admin/stats?since=${encodeURIComponent(since)}&bucket_s=60&origin=all`);
    expect(shown).toBeLessThanOrEqual(everyOrigin.by_deployment.find((row) => row.deployment === PRIMARY)!.attempts);

    await page.getByRole('link', { name: 'Keys' }).click();
    expect(await page.locator('p.keys-origin').textContent()).toContain("callers' only");
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});
