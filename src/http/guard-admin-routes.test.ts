import { describe, expect, it } from 'vitest';
import { guardAdminRoutes } from './guard-admin-routes.js';
import type { RouteHandler } from './route-matcher.js';

const handler: RouteHandler = () => undefined;
const access = { adminToken: () => 'token' };

describe('guardAdminRoutes', () => {
  it('refuses to build a table with an /admin/ route that has no rule, naming it', () => {
    expect(() => guardAdminRoutes({ 'GET /admin/me': handler, 'POST /admin/unruled': handler }, access)).toThrow(/POST \/admin\/unruled has no rule in ADMIN_RULES/);
  });

  it('wraps every ruled /admin/ route and leaves the others as they are', () => {
    const guarded = guardAdminRoutes({ 'GET /admin/me': handler, 'GET /healthz': handler, 'GET /ui/*': handler }, access);
    expect(guarded['GET /healthz']).toBe(handler);
    expect(guarded['GET /ui/*']).toBe(handler);
    expect(guarded['GET /admin/me']).not.toBe(handler);
  });
});
