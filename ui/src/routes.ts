import type { Page } from './page.js';
import { auditPage } from './pages/audit-page.js';
import { deploymentsPage } from './pages/deployments-page.js';
import { drillsPage } from './pages/drills-page.js';
import { keysPage } from './pages/keys-page.js';
import { overviewPage } from './pages/overview-page.js';
import { requestPage } from './pages/request-page.js';
import { requestsPage } from './pages/requests-page.js';
import { teamsPage } from './pages/teams-page.js';

export interface NavigationLink {
  path: string;
  label: string;
  /** The admin endpoint the page reads, when not every role may: the link is shown only to a role that may. */
  needs?: string;
}

/** The navigation, in order; the names are the dashboard's contract (docs/dashboard.md). */
export const NAVIGATION: readonly NavigationLink[] = [
  { path: '/ui/', label: 'Overview' },
  { path: '/ui/deployments', label: 'Deployments' },
  { path: '/ui/requests', label: 'Requests' },
  { path: '/ui/keys', label: 'Keys' },
  { path: '/ui/teams', label: 'Teams', needs: 'GET /admin/teams' },
  { path: '/ui/drills', label: 'Drills', needs: 'GET /admin/drills' },
  { path: '/ui/audit', label: 'Audit', needs: 'GET /admin/audit' },
];

export interface RouteMatch {
  page: Page;
  /** The navigation link the page belongs to. */
  section: string;
  params: Record<string, string>;
}

/** The page for a URL path, or undefined for a path the dashboard does not have. */
export function matchRoute(path: string): RouteMatch | undefined {
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed === '/ui') return { page: overviewPage, section: '/ui/', params: {} };
  if (trimmed === '/ui/deployments') return { page: deploymentsPage, section: '/ui/deployments', params: {} };
  if (trimmed === '/ui/requests') return { page: requestsPage, section: '/ui/requests', params: {} };
  if (trimmed === '/ui/keys') return { page: keysPage, section: '/ui/keys', params: {} };
  if (trimmed === '/ui/teams') return { page: teamsPage, section: '/ui/teams', params: {} };
  if (trimmed === '/ui/drills') return { page: drillsPage, section: '/ui/drills', params: {} };
  if (trimmed === '/ui/audit') return { page: auditPage, section: '/ui/audit', params: {} };
  const request = /^\/ui\/requests\/([^/]+)$/.exec(trimmed);
  if (request) return { page: requestPage, section: '/ui/requests', params: { id: decodeURIComponent(request[1]!) } };
  return undefined;
}
