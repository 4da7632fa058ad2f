import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AuditRow } from '../../src/admin/admin-api-types.js';
import { adminCall } from '../support/admin-calls.js';
import { chromiumForThisFile, waitForExpression } from '../support/chromium-browser.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { ADMIN_TOKEN, DASHBOARD_ROUTES, openPage, screenshot, signIn } from './dashboard-helpers.js';

const { available, browser } = chromiumForThisFile();
let gateway: TestGateway;
const secrets: string[] = [];
let auditor: string;
let teamAdmin: { id: string; token: string };

const asAdmin = (method: string, path: string, body?: unknown, token = ADMIN_TOKEN) => adminCall(gateway.url, method, path, { token, ...(body === undefined ? {} : { body }) });
async function made(method: string, path: string, body: unknown, token?: string): Promise<Record<string, unknown>> {
  const answer = await asAdmin(method, path, body, token);
  expect(answer.status, answer.text).toBeLessThan(300);
  return answer.body;
}

/** The changes the page should list, in the order they were made: a team, two tokens, a key, a change of the team by its team admin. */
beforeAll(async () => {
  if (!available) return;
  gateway = await startGateway(`auth: { mode: keys }\n${DASHBOARD_ROUTES}`);
  await made('POST', '/admin/teams', { name: 'search', budget: { usd: 5, period: 'day' } });
  auditor = (await made('POST', '/admin/tokens', { name: 'Olga (on call)', role: 'auditor' })).token as string;
  const theo = await made('POST', '/admin/tokens', { name: 'Theo (search lead)', role: 'team_admin', team: 'search' });
  teamAdmin = { id: theo.id as string, token: theo.token as string };
  secrets.push(auditor, teamAdmin.token, (await made('POST', '/admin/keys', { name: 'search-indexer', team: 'search' })).key as string);
  await made('PATCH', '/admin/teams/search', { exploration: { max_ttl_s: 3_600 } }, teamAdmin.token);
}, 60_000);
afterAll(() => gateway?.close());

const shownActions = (page: Page) => page.locator('table.audit tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-action')));

it.skipIf(!available)('an auditor sees every change newest first with its actor and the fields it changed, and narrows them by action and actor in the URL', async () => {
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url, '/ui/', auditor);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Audit' }).click();
    await page.locator('table.audit').waitFor();
    expect(await shownActions(page)).toEqual(['team.update', 'key.create', 'token.create', 'token.create', 'team.create']);
    const rows = (await asAdmin('GET', '/admin/audit')).body.data as unknown as AuditRow[];
    expect(await page.locator('table.audit tbody tr').evaluateAll((shown) => shown.map((row) => Number(row.getAttribute('data-seq'))))).toEqual(rows.map((row) => row.seq));

    const update = page.locator('tr[data-action="team.update"]');
    expect((await update.locator('.audit-actor').textContent())!.replace(/\s+/g, ' ').trim()).toBe('Theo (search lead) token, team_admin');
    expect(await update.locator('.diff li.changed').allTextContents()).toContain('exploration.max_ttl_s: 604800 → 3600');
    const create = page.locator('tr[data-action="key.create"]');
    expect((await create.locator('.audit-actor').textContent())!.replace(/\s+/g, ' ').trim()).toBe('admin.token token, admin');
    expect(await create.locator('.diff li.added').first().textContent()).toMatch(/^\+ id: "key_/);
    expect(await create.locator('.diff').textContent()).toContain('+ name: "search-indexer"');
    // The whole before and after, on demand.
    await create.getByText('Whole JSON').click();
    expect(JSON.parse((await create.locator('pre.json').textContent())!)).toEqual({ before: null, after: rows.find((row) => row.action === 'key.create')!.after });
    // No secret reaches the page: not the key's, not the tokens'.
    const content = await page.content();
    for (const secret of secrets) expect(content).not.toContain(secret);
    await screenshot(page, 'audit');

    await page.getByLabel('Action').selectOption('token.create');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/\/ui\/audit\?action=token\.create$/);
    await waitForExpression(page, "document.querySelectorAll('table.audit tbody tr').length === 2");
    expect(await shownActions(page)).toEqual(['token.create', 'token.create']);
    await page.reload();
    await page.locator('table.audit').waitFor();
    expect(await shownActions(page)).toEqual(['token.create', 'token.create']);
    expect(await page.getByLabel('Action').inputValue()).toBe('token.create');

    // An actor's name narrows the trail to what they did.
    await page.getByRole('link', { name: 'Clear' }).click();
    await waitForExpression(page, "document.querySelectorAll('table.audit tbody tr').length === 5");
    await page.locator('tr[data-action="team.update"] .audit-actor a').click();
    await page.waitForURL(new RegExp(`/ui/audit\\?actor=${teamAdmin.id}$`));
    await waitForExpression(page, "document.querySelectorAll('table.audit tbody tr').length === 1");
    expect(await shownActions(page)).toEqual(['team.update']);
    expect(await page.getByLabel('Actor').inputValue()).toBe(teamAdmin.id);

    await page.goto(`${gateway.url}/ui/audit?actor=admin.token&action=team.create`);
    await page.locator('table.audit').waitFor();
    expect(await shownActions(page)).toEqual(['team.create']);
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});

it.skipIf(!available)('pages back with Older, 50 rows at a time, and Newest returns', async () => {
  for (let index = 0; index < 50; index++) await made('POST', '/admin/keys', { name: `batch-${index}` });
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url, '/ui/audit');
    await page.locator('table.audit').waitFor();
    const seqs = () => page.locator('table.audit tbody tr').evaluateAll((rows) => rows.map((row) => Number(row.getAttribute('data-seq'))));
    const first = await seqs();
    expect(first).toHaveLength(50);
    await page.getByRole('link', { name: 'Older' }).click();
    await page.waitForURL(new RegExp(`/ui/audit\\?before=${first.at(-1)}$`));
    await waitForExpression(page, `document.querySelector('table.audit tbody tr')?.getAttribute('data-seq') === '${first.at(-1)! - 1}'`);
    // 55 rows in all: the five older ones, newest first, and no Older beyond them.
    expect(await seqs()).toEqual([5, 4, 3, 2, 1]);
    expect(await page.getByRole('link', { name: 'Older' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Newest' }).click();
    await waitForExpression(page, "document.querySelectorAll('table.audit tbody tr').length === 50");
    expect(await seqs()).toEqual(first);
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});

it.skipIf(!available)('a team admin is not shown the Audit page, and opening it says the gateway refused', async () => {
  const { page, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url, '/ui/', teamAdmin.token);
    const navigation = page.getByRole('navigation', { name: 'Dashboard' });
    expect(await navigation.getByRole('link').allTextContents()).toEqual(['Overview', 'Deployments', 'Requests', 'Keys', 'Teams']);
    await page.goto(`${gateway.url}/ui/audit`);
    await page.getByRole('alert').filter({ hasText: 'The audit trail could not be read: Permission denied' }).waitFor();
  } finally {
    await close();
  }
});
