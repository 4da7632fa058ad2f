/**
 * What the dashboard's browser tests share: a gateway with an admin token and mock routes, a
 * page that records every console error, signing in, and screenshots to test-results/.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { DASHBOARD_ADMIN_TOKEN, INCIDENT_CONFIG, sendIncidentTraffic, type IncidentTraffic } from '../support/dashboard-traffic.js';
import { postChat, startGateway, type TestGateway } from '../support/start-gateway.js';

export { horizontalOverflow, signIn } from '../support/dashboard-sign-in.js';

export const ADMIN_TOKEN = DASHBOARD_ADMIN_TOKEN;
export const SCREENSHOTS = join(process.cwd(), 'test-results', 'dashboard');

export const DASHBOARD_ROUTES = `
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
  mock-anthropic: { provider: mock, dialect: anthropic }
routes:
  support:
    retries: 0
    targets:
      - { connection: mock-openai, model: "primary?status=503", price: { input_per_mtok: 1000, output_per_mtok: 1000 } }
      - { connection: mock-anthropic, model: standby, price: { input_per_mtok: 1000, output_per_mtok: 1000 } }
  steady:
    retries: 0
    targets: [{ connection: mock-openai, model: steady, price: { input_per_mtok: 1000, output_per_mtok: 1000 } }]
`;

export interface DashboardPage {
  page: Page;
  /** Console errors and uncaught exceptions, as the page reported them. */
  errors: string[];
  close(): Promise<void>;
}

/** A 1280×800 page (or `viewport`) that records every console error and uncaught exception. */
export async function openPage(browser: Browser, viewport = { width: 1280, height: 800 }): Promise<DashboardPage> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    // The drills and canaries endpoints may not exist (or have nothing yet): the Drills page
    // expects those 404s, which the browser logs all the same.
    if (message.text().includes('status of 404') && /\/admin\/(drills|canaries)$/.test(message.location().url)) return;
    errors.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  return { page, errors, close: () => context.close() };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** A chat through the gateway that must succeed; returns its request id. */
export async function ask(gatewayUrl: string, model: string, options: { stream?: boolean } = {}): Promise<string> {
  const response = await postChat(gatewayUrl, { model, stream: options.stream ?? false, messages: [{ role: 'user', content: 'hi' }] });
  expect(response.status).toBe(200);
  await response.text();
  return response.headers.get('x-request-id')!;
}

/**
 * A gateway that has had an incident's traffic (test/support/dashboard-traffic.ts), for the
 * calling test file when it can run (`available`), closed after it.
 */
export function incidentGatewayForThisFile(available: boolean): { gateway(): TestGateway; traffic(): IncidentTraffic } {
  let gateway: TestGateway | undefined;
  let traffic: IncidentTraffic | undefined;
  beforeAll(async () => {
    if (!available) return;
    gateway = await startGateway(INCIDENT_CONFIG);
    traffic = await sendIncidentTraffic(gateway.url);
  }, 60_000);
  afterAll(() => gateway?.close());
  return {
    gateway: () => gateway ?? raise('the incident gateway is not running for this file'),
    traffic: () => traffic ?? raise('no incident traffic was sent for this file'),
  };
}

function raise(message: string): never {
  throw new Error(message);
}
