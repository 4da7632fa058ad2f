/**
 * What the fleet scenario tests share: a chat call with a virtual key, the admin calls, and the
 * YAML of one route on the test's mock provider. Not a test file itself.
 */
import { FLEET_ADMIN_TOKEN } from '../support/gateway-fleet.js';

export const hello = [{ role: 'user' as const, content: 'hi' }];

/** One route `r` to model `model` on the test's own mock provider, which every replica shares. */
export function mockRouteYaml(mockUrl: string, model = 'gpt-mock'): string {
  return `connections:
  mock: { provider: mock, base_url: "${mockUrl}" }
routes:
  r: { targets: [{ connection: mock, model: "${model}" }] }`;
}

export interface ChatAnswer {
  status: number;
  headers: Headers;
  body: { error?: { code: string | null; message: string; type: string } } & Record<string, unknown>;
}

/** `POST /v1/chat/completions` with the key as bearer; every answer is returned, whatever its status. */
export async function chat(replicaUrl: string, key: string, fields: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<ChatAnswer> {
  const response = await fetch(`${replicaUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'r', messages: hello, ...fields }),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as ChatAnswer['body'] };
}

/** An admin call with the fleet's token; returns the status and the parsed body. */
export async function admin(replicaUrl: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${replicaUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${FLEET_ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** Calls `attempt` back to back until it returns true or `withinMs` passes; resolves with the time taken, or rejects. */
export async function within(withinMs: number, what: string, attempt: () => Promise<boolean>): Promise<number> {
  const startedAtMs = Date.now();
  for (;;) {
    if (await attempt()) return Date.now() - startedAtMs;
    if (Date.now() - startedAtMs > withinMs) throw new Error(`not within ${withinMs} ms: ${what}`);
  }
}
