/**
 * Helpers for the health-state scenarios (docs/health.md, docs/operations.md): a local alert webhook that records what
 * the gateway posts, and `GET /admin/health`. Not a test file itself (vitest collects only
 * `*.test.ts`).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADMIN_TOKEN } from './scenario-helpers.js';

/** An alert as the gateway posts it to `alerts.webhook_url`. */
export interface ReceivedAlert {
  type: string;
  deployment?: string;
  connection?: string;
  route?: string;
  old_state?: string;
  new_state?: string;
  reason: string;
  since: string;
}

export interface AlertWebhook {
  url: string;
  /** Every JSON body POSTed so far, in arrival order. */
  alerts: ReceivedAlert[];
  /** Bodies that were not JSON (should stay empty). */
  unparsable: string[];
  close(): Promise<void>;
}

/** A `node:http` server on 127.0.0.1, ephemeral port, that records POSTed JSON bodies and answers 204. */
export async function startAlertWebhook(): Promise<AlertWebhook> {
  const alerts: ReceivedAlert[] = [];
  const unparsable: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (request.method === 'POST') {
        try {
          alerts.push(JSON.parse(text) as ReceivedAlert);
        } catch {
          unparsable.push(text);
        }
      }
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/alerts`,
    alerts,
    unparsable,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One deployment as `GET /admin/health` describes it. */
export interface DeploymentHealthView {
  deployment: string;
  connection?: string;
  model?: string;
  state: 'structural' | 'ejected' | 'half_open' | 'cooling' | 'healthy';
  since: string | null;
  reason: string;
  structural_cause?: string | null;
  ejected_until?: string | null;
  consecutive_ejections?: number;
  next_probe_at?: string | null;
  cooling_until: string | null;
  last_error?: { kind: string; message: string; at: string | null } | null;
  quota?: Record<string, { limit?: number; remaining?: number; resetAtMs?: number }> | null;
  first_token?: { samples: number; p99_ms: number | null; typical_input_tokens: number | null; timeout_ms: Record<string, number> };
  model_change?: Record<string, { value: boolean; inferred: boolean }>;
}

/** `GET /admin/health` with the scenario admin token. */
export async function adminHealth(gatewayUrl: string): Promise<DeploymentHealthView[]> {
  const response = await fetch(`${gatewayUrl}/admin/health`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    signal: AbortSignal.timeout(5_000),
  });
  if (response.status !== 200) throw new Error(`GET /admin/health → ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { data: DeploymentHealthView[] }).data;
}

/** The `/admin/health` entry of one deployment (`connection/model`); throws when it is not listed. */
export async function deploymentHealth(gatewayUrl: string, deployment: string): Promise<DeploymentHealthView> {
  const all = await adminHealth(gatewayUrl);
  const found = all.find((entry) => entry.deployment === deployment);
  if (!found) throw new Error(`/admin/health does not list ${deployment}; it lists ${all.map((entry) => entry.deployment).join(', ')}`);
  return found;
}
