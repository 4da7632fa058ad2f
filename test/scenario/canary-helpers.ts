/**
 * What the canary scenario tests share: prompts files, and the canary admin API with the scenario
 * admin token. Not a test file itself.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CanaryRouteView, CanaryRun } from '../../src/admin/admin-api-types.js';
import { mockAnswerText } from '../../src/mock/mock-provider.js';
import { ADMIN_TOKEN } from './scenario-helpers.js';

/** The mock's whole default answer (8 chunks): a reference every healthy mock answer matches exactly. */
export const MOCK_REFERENCE = mockAnswerText(8);

/** One route's canary as `GET /admin/canaries` lists it. */
export type CanaryRoute = CanaryRouteView;

/** A directory for prompts files (and stores), removed by `remove()`. */
export function canaryDirectory(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'switchyard-canary-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Writes a prompts file of one user question per reference; returns its path. */
export function writePrompts(directory: string, name: string, prompts: readonly { question: string; reference: string }[]): string {
  const file = join(directory, name);
  writeFileSync(file, prompts.map(({ question, reference }) => JSON.stringify({ messages: [{ role: 'user', content: question }], reference })).join('\n') + '\n');
  return file;
}

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** `POST /admin/canaries` (with `{"route": NAME}` when given): the status and the parsed body. */
export async function postCanaries(gatewayUrl: string, route?: string): Promise<{ status: number; body: { data?: CanaryRun[]; error?: Record<string, unknown> } }> {
  const response = await fetch(`${gatewayUrl}/admin/canaries`, {
    method: 'POST',
    headers: { ...admin, 'content-type': 'application/json' },
    body: route === undefined ? '' : JSON.stringify({ route }),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, body: (await response.json()) as { data?: CanaryRun[]; error?: Record<string, unknown> } };
}

/** One route's run, which must succeed (200). */
export async function runCanary(gatewayUrl: string, route: string): Promise<CanaryRun> {
  const { status, body } = await postCanaries(gatewayUrl, route);
  if (status !== 200) throw new Error(`POST /admin/canaries → ${status}: ${JSON.stringify(body)}`);
  return body.data![0]!;
}

/** `GET /admin/canaries`, by route. */
export async function canaryRoutes(gatewayUrl: string): Promise<Map<string, CanaryRoute>> {
  const response = await fetch(`${gatewayUrl}/admin/canaries`, { headers: admin, signal: AbortSignal.timeout(5_000) });
  if (response.status !== 200) throw new Error(`GET /admin/canaries → ${response.status}: ${await response.text()}`);
  const { data } = (await response.json()) as { data: CanaryRoute[] };
  return new Map(data.map((entry) => [entry.route, entry]));
}
