import { expect, it } from 'vitest';
import type { AdminStatsResponse } from '../../src/admin/admin-api-types.js';
import { chromiumForThisFile } from '../support/chromium-browser.js';
import { adminCall } from '../support/dashboard-traffic.js';
import { incidentGatewayForThisFile, openPage, screenshot, signIn } from './dashboard-helpers.js';

const { available, browser } = chromiumForThisFile();
const incident = incidentGatewayForThisFile(available);

const stats = (query: string) => adminCall<AdminStatsResponse>(incident.gateway().url, 'GET', `/admin/stats?${query}`);

it.skipIf(!available)("each deployment's row charts its last hour (attempts, failures, first-token p95) and shows the quota it reported", async () => {
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, incident.gateway().url, '/ui/deployments');
    const steady = page.locator('tr[data-deployment="mock-openai/steady?ratelimit=1000&remaining=640&cached=4"]');
    await steady.locator('.history svg').first().waitFor();
    // The callers' attempts, as the page counts them by default.
    const hour = (await stats(`since=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}&origin=caller`)).by_deployment;
    // The healthy ones: an ejected deployment's recovery probes may add attempts between the page's read and this one.
    for (const row of hour.filter((deployment) => /steady|standby/.test(deployment.deployment))) {
      const history = page.locator(`tr[data-deployment="${row.deployment}"] .history`);
      expect(await history.textContent(), row.deployment).toContain(`${row.attempts} / ${row.failures} failed`);
      expect(await history.locator('svg').first().getAttribute('aria-label')).toBe(`${row.attempts} callers' attempts, ${row.failures} failed, in the last hour`);
    }
    // Every attempt of the failing deployment failed; the streamed ones have a first-token line.
    const broken = page.locator('tr[data-deployment="mock-openai/broken?status=500"] .history');
    expect(await broken.textContent()).toMatch(/(\d+) \/ \1 failed/);
    expect(await steady.locator('.history').textContent()).toMatch(/first token p95 \d+ ms/);
    // The provider's rate-limit headers: 640 of 1000 left, for requests and tokens alike.
    const meters = steady.getByRole('meter');
    expect(await meters.evaluateAll((elements) => elements.map((element) => `${element.getAttribute('aria-label')} ${element.getAttribute('aria-valuenow')}`))).toEqual(['requests headroom 64', 'tokens headroom 64']);
    await screenshot(page, 'deployments-history');
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});

it.skipIf(!available)("each key's row charts its period's spend over the last day against its budget, with its tokens", async () => {
  const traffic = incident.traffic();
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, incident.gateway().url, '/ui/keys');
    const team = page.locator(`tr[data-key="${traffic.keys.team}"]`);
    await team.locator('svg').waitFor();
    const day = (await stats(`since=${encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString())}&bucket_s=900&origin=all`)).by_key;
    const teamStats = day.find((row) => row.key_name === traffic.keys.team)!;
    expect(teamStats.tokens.input).toBeGreaterThan(0);
    expect(await team.locator('td').nth(4).textContent()).toBe(`${teamStats.tokens.input} in / ${teamStats.tokens.output} out`);
    const spent = `$${teamStats.spend_usd.toFixed(2)}`;
    expect(await team.locator('svg').getAttribute('aria-label')).toBe(`spend of the period over the last day: $0.00 to ${spent} of $2.00`);
    // The budget is drawn as a dashed line, the spend as a line under it.
    expect(await team.locator('svg polyline[stroke-dasharray="3 2"]').count()).toBeGreaterThan(0);
    // A key without a budget, created minutes ago (its period began then): its spend still has a
    // point, and no budget line.
    const tight = page.locator(`tr[data-key="${traffic.keys.tight}"]`);
    const tightSpent = `$${day.find((row) => row.key_name === traffic.keys.tight)!.spend_usd.toFixed(2)}`;
    expect(await tight.locator('svg').getAttribute('aria-label')).toBe(`spend of the period over the last day: ${tightSpent} to ${tightSpent}, no budget`);
    expect(await tight.locator('svg polyline').count()).toBe(1);
    expect(await tight.locator('svg polyline[stroke-dasharray="3 2"]').count()).toBe(0);
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});
