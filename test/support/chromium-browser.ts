/**
 * A real headless Chromium for the dashboard's tests: Debian's `chromium` package, driven by
 * playwright-core (which brings no browser of its own). Under `CI=true` a missing chromium
 * fails the run; elsewhere the browser tests skip, loudly.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

export const CHROMIUM = '/usr/bin/chromium';

/** Whether the browser tests can run here; says so loudly when they cannot. */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  const message = `${CHROMIUM} is not installed: install it with \`apt-get install -y chromium\` to run the dashboard's browser tests`;
  if (process.env.CI === 'true') throw new Error(`${message}. CI must run them.`);
  console.warn(`\n*** SKIPPING: ${message}. ***\n`);
  return false;
}

/**
 * A bound for a hang: a launch on CI's busy 2-core machine has taken over 30 s (while other test
 * files start gateways and browsers of their own), and it still succeeds.
 */
const LAUNCH_TIMEOUT_MS = 100_000;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    timeout: LAUNCH_TIMEOUT_MS,
    args: [
      // Chromium refuses to run as root inside its sandbox; CI and this machine run as root.
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      // Nothing may reach out of the machine: no update checks, no field trials, no safe-browsing lists.
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-default-apps',
      '--disable-sync',
      '--no-first-run',
      '--disable-dev-shm-usage',
    ],
  });
}

/** One browser for the calling test file, when this machine has one, closed after it. */
export function chromiumForThisFile(): { available: boolean; browser(): Browser } {
  const available = chromiumAvailable();
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (available) browser = await launchChromium();
  }, LAUNCH_TIMEOUT_MS + 10_000);
  afterAll(async () => {
    await browser?.close();
  });
  return {
    available,
    browser() {
      if (!browser) throw new Error('Chromium is not running for this file');
      return browser;
    },
  };
}

/**
 * Waits until `expression` is true in the page. Not `page.waitForFunction(string)`: the dashboard's
 * CSP (`script-src 'self'`) refuses the eval its in-page polling uses, which fails as soon as the
 * first check is false — on a loaded machine. Each check here is one CDP evaluation, which CSP allows.
 */
export async function waitForExpression(page: Page, expression: string, timeoutMs = 15_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > giveUpAt) throw new Error(`${expression} still false after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
