/** What the teams tests share: a gateway's config, admin calls with any credential, a chat request. Not a test file itself. */
import { expect } from 'vitest';
import { keysAuth } from '../support/virtual-keys.js';

export const ADMIN_TOKEN = 'teams-tests-admin-token';

/** Priced, so requests cost something: $5 000 / $7 000 per million tokens in and out. */
const PRICE = 'price: { input_per_mtok: 5000, output_per_mtok: 7000 }';

/** A gateway that sets nothing but its store, keys, the admin token and two routes to the mock. */
export function teamsConfig(storeLine: string): string {
  return `${storeLine}
${keysAuth(ADMIN_TOKEN)}
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  chat: { targets: [{ connection: mock-openai, model: gpt-mock, ${PRICE} }] }
  search: { targets: [{ connection: mock-openai, model: gpt-mock, ${PRICE} }] }
`;
}

export interface AdminAnswer {
  status: number;
  text: string;
  body: { error?: { code: string; message: string; param?: string | null }; data?: Record<string, unknown>[] } & Record<string, unknown>;
}

/** One admin call, with `admin.token` unless another token is given. */
export async function adminCall(url: string, method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<AdminAnswer> {
  const headers: Record<string, string> = { authorization: `Bearer ${options.token ?? ADMIN_TOKEN}` };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${url}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  return { status: response.status, text, body: text === '' ? {} : (JSON.parse(text) as AdminAnswer['body']) };
}

/** `POST /admin/teams`; anything but 201 fails the test. The team's id. */
export async function createTeam(url: string, fields: Record<string, unknown>, token?: string): Promise<string> {
  const answer = await adminCall(url, 'POST', '/admin/teams', { body: fields, ...(token ? { token } : {}) });
  expect(answer.status, answer.text).toBe(201);
  return answer.body.id as string;
}

/** `POST /admin/keys`; anything but 201 fails the test. */
export async function createTeamKey(url: string, fields: Record<string, unknown>, token?: string): Promise<{ id: string; key: string } & Record<string, unknown>> {
  const answer = await adminCall(url, 'POST', '/admin/keys', { body: fields, ...(token ? { token } : {}) });
  expect(answer.status, answer.text).toBe(201);
  return answer.body as { id: string; key: string } & Record<string, unknown>;
}

/** A chat request with `key` to `model`; its status. */
export async function chat(url: string, key: string, model = 'chat'): Promise<number> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, max_tokens: 16, messages: [{ role: 'user', content: 'hello there' }] }),
    signal: AbortSignal.timeout(30_000),
  });
  await response.text();
  return response.status;
}
