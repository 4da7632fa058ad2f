import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumForThisFile } from '../support/chromium-browser.js';
import { loggerInto } from '../support/captured-log.js';
import { IDP_CLIENT_ID, IDP_CLIENT_SECRET, startIdentityProvider, type TestIdentityProvider } from '../support/identity-provider.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { createTeam } from '../support/admin-calls.js';
import { withStore } from '../support/store-rows.js';
import { createKey } from '../support/virtual-keys.js';
import { openPage, screenshot, signIn } from './dashboard-helpers.js';

const ADMIN_TOKEN = 'oidc-dashboard-admin-token-41c7';
const { available, browser } = chromiumForThisFile();
let identityProvider: TestIdentityProvider;
let gateway: TestGateway;
let directory: string;
const logLines: string[] = [];

beforeAll(async () => {
  if (!available) return;
  directory = mkdtempSync(join(tmpdir(), 'switchyard-oidc-dashboard-'));
  identityProvider = await startIdentityProvider({
    people: {
      ana: { name: 'Ana Oncall', email: 'ana@corp.test', groups: ['oncall'] },
      tom: { name: 'Tom Payments', email: 'tom@corp.test', groups: ['payments-leads'] },
      eve: { name: 'Eve Marketing', email: 'eve@corp.test', groups: ['marketing', 'sales'] },
      olga: { name: 'Olga Platform', email: 'olga@corp.test', groups: ['platform'] },
    },
  });
  gateway = await startGateway(
    `
store: { kind: sqlite, path: "${join(directory, 'gateway.db')}" }
admin:
  token: ${ADMIN_TOKEN}
  oidc:
    issuer: "${identityProvider.issuer}"
    client_id: ${IDP_CLIENT_ID}
    client_secret: ${IDP_CLIENT_SECRET}
    roles:
      platform: admin
      oncall: auditor
      payments-leads: { team_admin: payments }
connections:
  mock: { provider: mock }
routes:
  steady: { targets: [{ connection: mock, model: steady }] }
`,
    { logger: loggerInto(logLines, 'info') },
  );
  identityProvider.allowCallback(`${gateway.url}/ui/login/oidc/callback`);
  const payments = await createTeam(gateway.url, { name: 'payments' }, ADMIN_TOKEN);
  // The team's key: a team admin sees its own team's keys only.
  await createKey(gateway.url, ADMIN_TOKEN, { name: 'checkout-service', team: payments });
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  await identityProvider?.close();
  if (directory) rmSync(directory, { recursive: true, force: true });
});

/** From the sign-in form, through the identity provider's page, back to the gateway. */
async function signInThroughIdentityProvider(page: Page, login: string): Promise<void> {
  await page.goto(`${gateway.url}/ui/`);
  await page.getByRole('link', { name: `Sign in with ${new URL(identityProvider.issuer).host}` }).click();
  await page.getByLabel('Username').fill(login);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const who = async (page: Page) => (await page.locator('header .who').textContent())?.replace(/\s+/g, ' ').trim();

/** A change the page's own script makes with the session cookie: `withCsrf` echoes the CSRF cookie as the dashboard does. */
function postKeyFromThePage(page: Page, withCsrf: boolean): Promise<{ status: number; code: string }> {
  return page.evaluate<{ status: number; code: string }>(`(async () => {
    const csrf = document.cookie.split('; ').find((pair) => pair.startsWith('switchyard_csrf='))?.split('=')[1];
    const headers = { 'content-type': 'application/json', ...(${withCsrf} && csrf ? { 'x-csrf-token': csrf } : {}) };
    const response = await fetch('/admin/keys', { method: 'POST', headers, body: JSON.stringify({ name: 'from-the-page' }) });
    return { status: response.status, code: (await response.json()).error?.code };
  })()`);
}

it.skipIf(!available)('an auditor lands on the dashboard named with their role, sees no create, revoke or run button, is refused a write, and signs out', async () => {
  const { page, errors, close } = await openPage(browser());
  try {
    await signInThroughIdentityProvider(page, 'ana');
    await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/ui/');
    expect(await who(page)).toBe('Ana Oncall auditor');
    await screenshot(page, 'signed-in-through-the-identity-provider');

    await page.getByRole('link', { name: 'Keys' }).click();
    await page.locator('tr[data-key="checkout-service"]').waitFor();
    expect(await page.getByRole('button', { name: 'Revoke' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Drills' }).click();
    await page.getByRole('heading', { name: 'Latest fallback drill' }).waitFor();
    await page.getByText('No drill has run yet.').waitFor();
    expect(await page.getByRole('button', { name: 'Run drill' }).count()).toBe(0);
    expect(errors).toEqual([]);

    expect(await postKeyFromThePage(page, true)).toEqual({ status: 403, code: 'permission_denied' });

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Admin token').waitFor();
    const cookies = (await page.context().cookies()).map((cookie) => cookie.name);
    expect(cookies).not.toContain('switchyard_session');
    expect(cookies).not.toContain('switchyard_csrf');
    expect(await page.evaluate<number>(`fetch('/admin/me').then((response) => response.status)`)).toBe(401);
    await page.reload();
    await page.getByRole('link', { name: /^Sign in with / }).waitFor();
    await screenshot(page, 'sign-in-with-the-identity-provider-or-the-admin-token');
  } finally {
    await close();
  }
});

it.skipIf(!available)("a team admin sees the create and revoke buttons but no Drills page, and the page's writes need the CSRF token", async () => {
  const { page, close } = await openPage(browser());
  try {
    await signInThroughIdentityProvider(page, 'tom');
    await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
    expect(await who(page)).toBe('Tom Payments team admin');
    expect(await page.getByRole('link', { name: 'Drills' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('button', { name: 'Create key' }).waitFor();
    await page.locator('tr[data-key="checkout-service"]').getByRole('button', { name: 'Revoke' }).waitFor();

    expect(await postKeyFromThePage(page, false)).toEqual({ status: 403, code: 'csrf_token_invalid' });
  } finally {
    await close();
  }
});

it.skipIf(!available)('a person whose groups map to no role is refused with a page that says so and names their groups', async () => {
  const { page, close } = await openPage(browser());
  try {
    await signInThroughIdentityProvider(page, 'eve');
    await page.getByRole('heading', { name: 'You hold no role at this gateway' }).waitFor();
    const text = await page.locator('main').textContent();
    expect(text).toContain('You signed in at the identity provider as Eve Marketing');
    expect(text).toContain('your "groups" claim held "marketing", "sales"');
    await screenshot(page, 'signed-in-with-no-role');
    expect((await page.context().cookies()).map((cookie) => cookie.name)).not.toContain('switchyard_session');
    await page.getByRole('link', { name: 'Back to the sign-in' }).click();
    await page.getByLabel('Admin token').waitFor();
  } finally {
    await close();
  }
});

it.skipIf(!available)("an admin signed in through the identity provider creates a key from the Keys page: the dashboard's writes carry the CSRF token", async () => {
  const { page, errors, close } = await openPage(browser());
  try {
    await signInThroughIdentityProvider(page, 'olga');
    await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
    expect(await who(page)).toBe('Olga Platform admin');
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByLabel('Name').fill('made-by-olga');
    await page.getByRole('button', { name: 'Create key' }).click();
    expect(await page.locator('#new-secret').textContent()).toMatch(/^sk-sy-/);
    await page.getByRole('button', { name: 'Done' }).click();
    await page.locator('tr[data-key="made-by-olga"]').waitFor();
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});

it.skipIf(!available)('the admin token still signs in (break-glass), named admin.token with the admin role', async () => {
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url, '/ui/keys', ADMIN_TOKEN);
    expect(await who(page)).toBe('admin.token admin');
    await page.getByRole('button', { name: 'Create key' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Admin token').waitFor();
    expect(await page.evaluate<string>('JSON.stringify({ ...sessionStorage })')).toBe('{}');
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});

it.skipIf(!available)('the sign-ins and the refused one are rows of the audit trail, and the client secret is in no row and no log line', async () => {
  const rows = await withStore(gateway.configSource.current.store, (db) => db.selectFrom('audit').selectAll().where('action', 'in', ['signin', 'signin.refused']).orderBy('seq').execute());
  expect(rows.map((row) => [row.action, row.actor_id])).toEqual([
    ['signin', 'ana'],
    ['signin', 'tom'],
    ['signin.refused', 'eve'],
    ['signin', 'olga'],
  ]);
  expect(JSON.stringify(rows)).not.toContain(IDP_CLIENT_SECRET);
  expect(logLines.join('')).toContain('signed in through the identity provider');
  expect(logLines.join('')).not.toContain(IDP_CLIENT_SECRET);
});
