import { expect, it } from 'vitest';
import type { AdminHealthResponse } from '../../src/admin/admin-api-types.js';
import { DEPLOYMENT_STATES } from '../../src/health/deployment-state.js';
import { chromiumForThisFile } from '../support/chromium-browser.js';
import { adminCall } from '../support/dashboard-traffic.js';
import { incidentGatewayForThisFile, openPage, screenshot, signIn } from './dashboard-helpers.js';

const { available, browser } = chromiumForThisFile();
const incident = incidentGatewayForThisFile(available);

it.skipIf(!available)('the Deployments page puts the deployments that are out first, the most serious first, and gives their times to the second', async () => {
  const gateway = incident.gateway();
  // Configured order: the support route's primary and standby, steady, reports' broken one, bulk's throttled one.
  const configured = (await adminCall<AdminHealthResponse>(gateway.url, 'GET', '/admin/health')).data.map((row) => row.deployment);
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url, '/ui/deployments');
    const rows = page.locator('tbody tr[data-deployment]');
    await rows.first().waitFor();
    // The last hour's failures break ties within a state: wait for them to be read.
    await page.locator('.attempt-counts').first().waitFor();
    const shown = await rows.evaluateAll((elements) => elements.map((row) => ({ deployment: row.getAttribute('data-deployment')!, state: row.querySelector('.state')!.textContent!.trim() })));
    expect(shown.map((row) => row.deployment).sort()).toEqual([...configured].sort());
    const ranks = shown.map((row) => DEPLOYMENT_STATES.indexOf(row.state as (typeof DEPLOYMENT_STATES)[number]));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    // The failing ones (ejected by their 500s and 503s, cooling after a 429) come before the healthy ones, unlike in the config.
    expect(shown.at(-1)!.state).toBe('healthy');
    expect(shown[0]!.state).not.toBe('healthy');
    expect(shown.map((row) => row.deployment)).not.toEqual(configured);

    // An ejection's or a cooling's end: the time of day and how far off, both to the second.
    const cooling = page.locator('tr[data-deployment="mock-anthropic/throttled?status=429&retry_after=120"] .until');
    expect((await cooling.textContent())!.replace(/\s+/g, ' ')).toMatch(/^cooling until \d{1,2}:\d{2}:\d{2}( [AP]M)? \(in (1 min( \d+ s)?|2 min)\)$/);
    for (const since of await page.locator('tbody tr[data-deployment] td:nth-child(3) time').allTextContents()) expect(since).toMatch(/\d{1,2}:\d{2}:\d{2}/);
    await screenshot(page, 'deployments-failing-first');
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});
