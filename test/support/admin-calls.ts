/** Admin API calls for tests: with any credential, and teams, keys and tokens made through the API. */
import { expect } from 'vitest';

/** The `admin.token` of the gateways these calls go to by default (`keysAuth(ADMIN_TOKEN)` in their config). */
export const ADMIN_TOKEN = 'switchyard-tests-admin-token';

export interface AdminAnswer {
  status: number;
  text: string;
  body: { error?: { code: string; message: string; param?: string | null }; data?: Record<string, unknown>[] } & Record<string, unknown>;
}

/** One admin call, with `admin.token` unless another token is given; `token: null` sends no credential, a string body is sent as is. */
export async function adminCall(url: string, method: string, path: string, options: { token?: string | null; body?: unknown } = {}): Promise<AdminAnswer> {
  const token = options.token === undefined ? ADMIN_TOKEN : options.token;
  const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${url}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  return { status: response.status, text, body: text === '' ? {} : (JSON.parse(text) as AdminAnswer['body']) };
}

export interface CreatedToken {
  id: string;
  token: string;
  name: string;
  role: string;
  team: string | null;
  expires_at: string | null;
}

/** `POST /admin/tokens` with `admin.token`; anything but 201 fails the test. */
export async function createToken(url: string, fields: Record<string, unknown>): Promise<CreatedToken> {
  const answer = await adminCall(url, 'POST', '/admin/tokens', { body: fields });
  expect(answer.status, answer.text).toBe(201);
  return answer.body as unknown as CreatedToken;
}

/** `POST /admin/teams`; anything but 201 fails the test. The team's id. */
export async function createTeam(url: string, fields: Record<string, unknown>, token?: string): Promise<string> {
  const answer = await adminCall(url, 'POST', '/admin/teams', { body: fields, ...(token ? { token } : {}) });
  expect(answer.status, answer.text).toBe(201);
  return answer.body.id as string;
}

/** `POST /admin/keys` (a `team` field puts it in a team); anything but 201 fails the test. */
export async function createTeamKey(url: string, fields: Record<string, unknown>, token?: string): Promise<{ id: string; key: string } & Record<string, unknown>> {
  const answer = await adminCall(url, 'POST', '/admin/keys', { body: fields, ...(token ? { token } : {}) });
  expect(answer.status, answer.text).toBe(201);
  return answer.body as { id: string; key: string } & Record<string, unknown>;
}
