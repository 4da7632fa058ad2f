import { beforeAll, expect, it } from 'vitest';
import type { AdminRequestsResponse, RequestRecord } from '../../src/admin/admin-api-types.js';
import { chromiumForThisFile } from '../support/chromium-browser.js';
import { adminCall } from '../support/dashboard-traffic.js';
import { postChat } from '../support/start-gateway.js';
import { createKey } from '../support/virtual-keys.js';
import { ADMIN_TOKEN, incidentGatewayForThisFile, openPage, screenshot, signIn } from './dashboard-helpers.js';

const { available, browser } = chromiumForThisFile();
const incident = incidentGatewayForThisFile(available);
let callers: RequestRecord[];

beforeAll(async () => {
  if (available) callers = (await adminCall<AdminRequestsResponse>(incident.gateway().url, 'GET', '/admin/requests?origin=caller&limit=200')).data;
});

it.skipIf(!available)('an error-kind filter lists exactly the records of that kind, and so do the fallback and serving-deployment filters', async () => {
  const gateway = incident.gateway();
  const traffic = incident.traffic();
  expect(callers).toHaveLength(traffic.sent);
  const { page, errors, close } = await openPage(browser());
  try {
    const shownIds = async () => {
      await page.locator('tbody tr, p:text("No request matches.")').first().waitFor();
      return (await page.locator('tbody th a').allTextContents()).sort();
    };
    // The budget refusals: the intern key's two requests, nothing else.
    await signIn(page, gateway.url, '/ui/requests?error_kind=refused_budget');
    const budget = callers.filter((record) => record.error_code === 'budget_exceeded');
    expect(budget.map((record) => record.key_name)).toEqual([traffic.keys.broke, traffic.keys.broke]);
    expect(await shownIds()).toEqual(budget.map((record) => record.id).sort());
    expect(await page.locator('tbody td.error-kind').allTextContents()).toEqual(['refused: budget', 'refused: budget']);

    // From the form: the callers' requests whose last attempt failed with a server error.
    await page.getByLabel('Error kind').selectOption('server_error');
    await page.getByLabel('Origin').selectOption('caller');
    await page.getByRole('button', { name: 'Apply' }).click();
    // The callers' requests are the default: the URL leaves them out.
    await page.waitForURL(/\/ui\/requests\?error_kind=server_error$/);
    await page.locator('tbody tr td.error-kind', { hasText: 'server_error' }).first().waitFor();
    const serverErrors = callers.filter((record) => record.status !== 'ok' && record.status !== 'rejected' && record.attempts.at(-1)?.kind === 'server_error');
    expect(serverErrors.map((record) => record.route)).toEqual(['reports', 'reports', 'reports']);
    expect(await shownIds()).toEqual(serverErrors.map((record) => record.id).sort());
    await screenshot(page, 'requests-server-errors');

    // Served by a fallback, and served by the standby: the support route's requests alike.
    const support = callers.filter((record) => record.route === 'support').map((record) => record.id).sort();
    expect(support).toHaveLength(traffic.servedAfterFailover);
    await page.goto(`${gateway.url}/ui/requests?fallback=true&origin=caller`);
    await page.locator('tbody tr').first().waitFor();
    expect(await shownIds()).toEqual(support);
    const standby = callers.find((record) => record.route === 'support')!.served!;
    await page.goto(`${gateway.url}/ui/requests?deployment=${encodeURIComponent(`${standby.connection}/${standby.model}`)}&origin=caller`);
    await page.locator('tbody tr').first().waitFor();
    expect(await shownIds()).toEqual(support);
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});

it.skipIf(!available)('the live toggle keeps the newest page current without a reload', async () => {
  const gateway = incident.gateway();
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url, '/ui/requests?route=steady&status=ok');
    await page.locator('tbody tr').first().waitFor();
    const before = await page.locator('tbody tr').count();
    // Clicking it navigates to the live URL, which draws the page anew (checked).
    await page.getByLabel('Live: read again').click();
    await page.waitForURL(/live=1/);
    expect(new URL(page.url()).searchParams.get('route')).toBe('steady');
    expect(await page.getByLabel('Live: read again').isChecked()).toBe(true);

    const key = await createKey(gateway.url, ADMIN_TOKEN, { name: 'live-check' });
    const response = await postChat(gateway.url, { model: 'steady', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${key.key}` });
    expect(response.status).toBe(200);
    const id = response.headers.get('x-request-id')!;
    await response.text();
    // No reload, no click: the next read brings it in.
    await page.locator('tbody th a', { hasText: id }).waitFor({ timeout: 15_000 });
    expect(await page.locator('tbody tr').count()).toBe(before + 1);
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});
