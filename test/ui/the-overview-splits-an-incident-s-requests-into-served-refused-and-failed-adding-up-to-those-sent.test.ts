import { expect, it } from 'vitest';
import type { AdminRequestsResponse } from '../../src/admin/admin-api-types.js';
import { chromiumForThisFile } from '../support/chromium-browser.js';
import { adminCall } from '../support/dashboard-traffic.js';
import { incidentGatewayForThisFile, openPage, screenshot, signIn } from './dashboard-helpers.js';

const { available, browser } = chromiumForThisFile();
const incident = incidentGatewayForThisFile(available);

it.skipIf(!available)('counts every request sent once — served first try or after failover, refused by class each in its colour, failed upstream by kind — and the attempts of the requests that reached a provider', async () => {
  const gateway = incident.gateway();
  const traffic = incident.traffic();
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url);
    const table = page.locator('table.outcome-table');
    await table.waitFor();
    const count = async (key: string) => Number(await table.locator(`tr[data-outcome="${key}"] td`).first().textContent());
    const keys = await table.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-outcome')!));

    expect(await count('all')).toBe(traffic.sent);
    const parts = keys.filter((key) => key !== 'all');
    let sum = 0;
    for (const key of parts) sum += await count(key);
    expect(sum).toBe(traffic.sent);

    expect(await count('served_first_try')).toBe(traffic.servedFirstTry);
    expect(await count('served_after_failover')).toBe(traffic.servedAfterFailover);
    for (const [refusal, sent] of Object.entries(traffic.refused)) expect(await count(`refused.${refusal}`), refusal).toBe(sent);
    let failed = 0;
    for (const key of parts.filter((part) => part.startsWith('failed_upstream.'))) failed += await count(key);
    expect(failed).toBe(traffic.failedUpstream);
    // The failing routes' kinds: a 500 is a server error, a provider's 429 its rate limit (not the gateway's),
    // and so is the request that found its only target cooling after that 429 and reached no provider.
    expect(await count('failed_upstream.server_error')).toBe(3);
    expect(await count('failed_upstream.rate_limit')).toBe(2);
    expect(keys).not.toContain('refused.other');

    // Each refusal class has a colour of its own, unlike every other outcome's.
    const colours = await table.locator('tbody tr[data-outcome] .swatch').evaluateAll((swatches) => swatches.map((swatch) => swatch.ownerDocument.defaultView!.getComputedStyle(swatch).backgroundColor));
    expect(new Set(colours).size).toBe(colours.length);

    // Attempts over the callers' requests that reached a provider (refusals made none).
    const reached = (await adminCall<AdminRequestsResponse>(gateway.url, 'GET', '/admin/requests?origin=caller&limit=200')).data.filter((record) => record.attempts.length > 0);
    const attempts = reached.reduce((total, record) => total + record.attempts.length, 0);
    const figure = page.locator('.figures dt', { hasText: 'Attempts per reached request' }).locator('xpath=following-sibling::dd');
    expect(await figure.textContent()).toBe((attempts / reached.length).toFixed(2));
    const refused = Object.values(traffic.refused).reduce((total, sent) => total + sent, 0);
    expect(await page.locator('.figures dt', { hasText: 'Refused by the gateway' }).locator('xpath=following-sibling::dd').textContent()).toMatch(new RegExp(`^${refused} \\(`));

    // The per-route table, and the deployments that failed with since when.
    const route = (name: string) => page.locator('section[aria-labelledby="by-route-heading"] tbody tr', { has: page.locator('th', { hasText: new RegExp(`^${name}$`) }) });
    expect(await route('support').locator('td').nth(0).textContent()).toBe(String(traffic.servedAfterFailover));
    expect(await route('support').locator('td').nth(2).textContent()).toBe('100.0 %');
    // Refused before any route (an unknown model, a body that is not JSON): one row, named so.
    expect(await route('no route').count()).toBe(1);
    expect(await route('no route').locator('td').nth(0).textContent()).toBe(String(traffic.noRoute));
    expect(await page.locator('section[aria-labelledby="by-route-heading"]').textContent()).not.toContain('direct');
    const failing = page.locator('table.failing tr[data-deployment="mock-openai/broken?status=500"]');
    expect(await failing.locator('td').first().textContent()).toBe('3 / 3');
    expect(await failing.locator('time').first().getAttribute('datetime')).toMatch(/:00(\.000)?Z$/);
    await screenshot(page, 'overview-incident');
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});
