import { beforeAll, expect, it } from 'vitest';
import type { AdminRequestsResponse } from '../../src/admin/admin-api-types.js';
import { chromiumForThisFile, waitForExpression } from '../support/chromium-browser.js';
import { adminCall, sendTeamTraffic } from '../support/dashboard-traffic.js';
import { horizontalOverflow, incidentGatewayForThisFile, openPage, screenshot, signIn } from './dashboard-helpers.js';

const { available, browser } = chromiumForThisFile();
const incident = incidentGatewayForThisFile(available);
let failedOverId: string;

beforeAll(async () => {
  if (!available) return;
  const url = incident.gateway().url;
  // A drill's steps carry the longest texts of all: the providers' error messages.
  await adminCall(url, 'POST', '/admin/drills');
  // A team with keys of both kinds for the Teams page, and the audit rows of making them.
  await sendTeamTraffic(url);
  failedOverId = (await adminCall<AdminRequestsResponse>(url, 'GET', '/admin/requests?route=support&origin=caller')).data.find((record) => record.attempts.length > 1)!.id;
}, 60_000);

const PAGES = ['/ui/', '/ui/?range=day', '/ui/?team=search', '/ui/deployments', '/ui/requests', '/ui/keys', '/ui/teams', '/ui/drills', '/ui/audit'];

for (const viewport of [
  { name: 'a 1280 px window', width: 1280, height: 800 },
  { name: "a phone's 390 px", width: 390, height: 844 },
]) {
  it.skipIf(!available)(`with an incident's records, no page is wider than ${viewport.name}, and no table in it scrolls sideways`, async () => {
    const { page, errors, close } = await openPage(browser(), { width: viewport.width, height: viewport.height });
    try {
      const gateway = incident.gateway();
      await signIn(page, gateway.url);
      for (const path of [...PAGES, `/ui/requests/${failedOverId}`]) {
        await page.goto(`${gateway.url}${path}`);
        await page.getByRole('heading', { level: 1 }).waitFor();
        await waitForExpression(page, "!document.body.textContent.includes('Loading…')");
        // Every page draws at least one table once it has read what it shows.
        await page.locator('main table').first().waitFor();
        expect(await horizontalOverflow(page), path).toEqual([]);
      }
      await screenshot(page, `fits-${viewport.width}-timeline`);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
}
