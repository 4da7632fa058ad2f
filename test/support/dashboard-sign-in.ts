import type { Page } from 'playwright-core';
import { DASHBOARD_ADMIN_TOKEN } from './dashboard-traffic.js';

/** Opens `path` of the dashboard and signs in with the form (typed, then Enter), landing on that page. */
export async function signIn(page: Page, gatewayUrl: string, path = '/ui/', token = DASHBOARD_ADMIN_TOKEN): Promise<void> {
  await page.goto(`${gatewayUrl}${path}`);
  const field = page.getByLabel('Admin token');
  await field.fill(token);
  await field.press('Enter');
  await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
}

/** Whether anything on the page is wider than the window, or scrolls sideways inside it: the names of what does. */
export function horizontalOverflow(page: Page): Promise<string[]> {
  // Run in the page (a string: the gateway's code is compiled without the DOM's types).
  return page.evaluate<string[]>(`(() => {
    const found = [];
    const root = document.documentElement;
    if (root.scrollWidth > window.innerWidth) found.push('the page (' + root.scrollWidth + ' px wide in ' + window.innerWidth + ')');
    for (const element of document.querySelectorAll('main *')) {
      const overflow = getComputedStyle(element).overflowX;
      if ((overflow === 'auto' || overflow === 'scroll') && element.scrollWidth > element.clientWidth + 1) {
        found.push(element.tagName.toLowerCase() + '.' + element.className + ' (' + element.scrollWidth + ' px in ' + element.clientWidth + ')');
      }
    }
    return found;
  })()`);
}
