/** What the access tests share: admin calls with any credential, and admin tokens made through the API. Not a test file itself. */
import { expect } from 'vitest';

export const ADMIN_TOKEN = 'access-tests-admin-token';

export interface AdminAnswer {
  status: number;
  text: string;
  body: {
    error?: { code: string; message: string; param?: string | null };
  } & Record<string, unknown>;
}

/** One admin call; `token: null` sends no credential, a string body is sent as is. */
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

/** A chat request to `model` with `key`, answered by the mock. */
export async function chatWith(url: string, key: string, model = 'r'): Promise<AdminAnswer> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as AdminAnswer['body'] };
}
