import { benchAdminToken } from './gateway-config.js';

const createTimeoutMs = 10_000;

/**
 * Creates the virtual key the load sends to a gateway: a rate limit and a budget far above what
 * the bench can reach, so nothing is refused, yet each request is counted against both (the
 * gate's work, and with Redis state its round trip, is in every figure). Returns its secret.
 */
export async function createBenchKey(gatewayUrl: string): Promise<string> {
  const response = await fetch(`${gatewayUrl}/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${benchAdminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', limits: { rpm: 1_000_000_000 }, budget: { usd: 1_000_000, period: 'total' } }),
    signal: AbortSignal.timeout(createTimeoutMs),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`creating the bench key on ${gatewayUrl}: ${response.status} ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { key: string }).key;
}

/** What `/readyz` says of the gateway's state (`memory`, `shared` or `degraded`). */
export async function gatewayState(gatewayUrl: string): Promise<string> {
  const response = await fetch(`${gatewayUrl}/readyz`, { signal: AbortSignal.timeout(createTimeoutMs) });
  return ((await response.json()) as { state?: string }).state ?? 'unknown';
}
