import { beforeAll, expect, it } from 'vitest';
import type { AdminRequestsResponse } from '../../src/admin/admin-api-types.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { chromiumForThisFile } from '../support/chromium-browser.js';
import { adminCall } from '../support/dashboard-traffic.js';
import { incidentGatewayForThisFile, openPage, screenshot, signIn } from './dashboard-helpers.js';

const { available, browser } = chromiumForThisFile();
const incident = incidentGatewayForThisFile(available);

beforeAll(async () => {
  if (!available) return;
  // The incident ejects the support route's primary and the reports route's target: the gateway probes them.
  const url = incident.gateway().url;
  await eventually(async () => (await adminCall<AdminRequestsResponse>(url, 'GET', '/admin/requests?origin=probe')).data.length >= 2, 20_000, 'recovery probes of the ejected deployments');
}, 60_000);

it.skipIf(!available)("the Requests page lists the callers' requests by default, and the gateway's probes only when Origin asks for probes or every origin", async () => {
  const gateway = incident.gateway();
  const { page, errors, close } = await openPage(browser());
  const originsShown = async () => {
    await page.locator('tbody tr').first().waitFor();
    return page.locator('tbody tr td:nth-child(3)').evaluateAll((cells) => cells.map((cell) => cell.querySelector('.tag.origin')?.textContent ?? 'caller'));
  };
  try {
    await signIn(page, gateway.url, '/ui/requests');
    expect(await page.getByLabel('Origin').inputValue()).toBe('caller');
    const callers = await originsShown();
    expect(callers).toHaveLength(incident.traffic().sent);
    expect(new Set(callers)).toEqual(new Set(['caller']));

    await page.getByLabel('Origin').selectOption('probe');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/\/ui\/requests\?origin=probe$/);
    await page.locator('tbody tr td .tag.origin').first().waitFor();
    const probes = await originsShown();
    expect(probes.length).toBeGreaterThanOrEqual(2);
    expect(new Set(probes)).toEqual(new Set(['probe']));
    await screenshot(page, 'requests-probes');

    // Every origin, newest first: the latest probes, then the callers' requests as far as the page of 50 goes.
    await page.goto(`${gateway.url}/ui/requests?origin=all`);
    expect(await page.getByLabel('Origin').inputValue()).toBe('all');
    const everyOrigin = await originsShown();
    const probesShown = everyOrigin.filter((origin) => origin === 'probe').length;
    expect(probesShown).toBeGreaterThanOrEqual(probes.length);
    expect(everyOrigin.filter((origin) => origin === 'caller')).toHaveLength(Math.min(incident.traffic().sent, 50 - probesShown));
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});
