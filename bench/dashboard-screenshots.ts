/**
 * A screenshot of every dashboard page, at a desktop's width and a phone's, against a gateway with
 * an incident's traffic (test/support/dashboard-traffic.ts: a failing primary, failing routes,
 * refusals of each class), a team with its keys, and a drill run — to look at after changing the
 * UI. The files are not committed; the default directory is git-ignored.
 *
 *   npm run screenshots [-- --out DIR]
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import type { AdminRequestsResponse } from '../src/admin/admin-api-types.js';
import { launchChromium } from '../test/support/chromium-browser.js';
import { signIn } from '../test/support/dashboard-sign-in.js';
import { adminCall, INCIDENT_CONFIG, sendIncidentTraffic, sendTeamTraffic } from '../test/support/dashboard-traffic.js';
import { startGateway } from '../test/support/start-gateway.js';

const { values } = parseArgs({ options: { out: { type: 'string', default: 'dashboard-screenshots' } }, strict: true });
const directory = resolve(values.out!);
mkdirSync(directory, { recursive: true });

const VIEWPORTS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

const gateway = await startGateway(INCIDENT_CONFIG);
let browser: Browser | undefined;
try {
  await sendIncidentTraffic(gateway.url);
  await adminCall(gateway.url, 'POST', '/admin/drills');
  await sendTeamTraffic(gateway.url);
  const failedOver = (await adminCall<AdminRequestsResponse>(gateway.url, 'GET', '/admin/requests?route=support&origin=caller&limit=50')).data.find((record) => record.attempts.length > 1);
  const pages: [string, string][] = [
    ['overview', '/ui/'],
    ['overview-day', '/ui/?range=day'],
    ['deployments', '/ui/deployments'],
    ['requests', '/ui/requests'],
    ['requests-refused-for-budget', '/ui/requests?error_kind=refused_budget'],
    ['keys', '/ui/keys'],
    ['teams', '/ui/teams'],
    ['drills', '/ui/drills'],
    ['audit', '/ui/audit'],
    ['overview-one-team', '/ui/?team=search'],
  ];
  if (failedOver) pages.push(['request-timeline', `/ui/requests/${failedOver.id}`]);
  browser = await launchChromium();
  for (const [viewportName, viewport] of Object.entries(VIEWPORTS)) {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    await signIn(page, gateway.url);
    for (const [name, path] of pages) {
      await page.goto(`${gateway.url}${path}`);
      await settled(page);
      const file = join(directory, `${viewportName}-${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      console.log(file);
    }
    // The README's timeline picture is the desktop window as a visitor first sees it, not the whole page.
    if (failedOver && viewportName === 'desktop') {
      await page.goto(`${gateway.url}/ui/requests/${failedOver.id}`);
      await settled(page);
      const file = join(directory, 'dashboard-request-timeline.png');
      await page.screenshot({ path: file });
      console.log(file);
    }
    await context.close();
  }
} finally {
  await browser?.close();
  await gateway.close();
}

/** The page has drawn what it read: nothing says "Loading…" and the network has been quiet for a moment. */
async function settled(page: Page): Promise<void> {
  await page.getByRole('heading', { level: 1 }).waitFor();
  await page.waitForFunction("!document.body.textContent.includes('Loading…')", undefined, { timeout: 15_000 });
  await page.waitForLoadState('networkidle');
}

