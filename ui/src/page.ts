import type { AdminApi } from './admin-api.js';
import type { AdminMeResponse } from './admin-api-types.js';

export interface PageContext {
  api: AdminApi;
  /** Who is signed in: their roles, and the teams they hold one in. */
  me: AdminMeResponse;
  /** The page URL's path parameters (a request's id). */
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  /** Whether the signed-in role may call an admin endpoint (`METHOD /path`, as `GET /admin/me` lists them): actions it may not take are not shown. */
  can(route: string): boolean;
  /** Goes to another dashboard URL (`/ui/...`), as a link would. */
  navigate(url: string): void;
}

/** Renders a page into `root` and keeps it current; returns what stops it (timers) when another page takes over. */
export type Page = (root: HTMLElement, context: PageContext) => () => void;
