/**
 * What the drill scenario tests share: the drill's admin calls with the scenario admin token.
 * Not a test file itself.
 */
import type { DrillRun } from '../../src/drills/drill-run.js';
import { ADMIN_TOKEN } from '../scenario/scenario-helpers.js';

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** `POST /admin/drills`, with `{"route": NAME}` when a route is given. */
export async function postDrill(gatewayUrl: string, route?: string): Promise<Response> {
  return fetch(`${gatewayUrl}/admin/drills`, {
    method: 'POST',
    headers: route === undefined ? admin : { ...admin, 'content-type': 'application/json' },
    ...(route === undefined ? {} : { body: JSON.stringify({ route }) }),
    signal: AbortSignal.timeout(30_000),
  });
}

/** `POST /admin/drills` that must answer 200: the finished run. */
export async function drill(gatewayUrl: string, route?: string): Promise<DrillRun> {
  const response = await postDrill(gatewayUrl, route);
  if (response.status !== 200) throw new Error(`POST /admin/drills → ${response.status}: ${await response.text()}`);
  return (await response.json()) as DrillRun;
}

/** `GET /admin/drills`: the latest run, or undefined on a 404 (none yet). */
export async function latestDrill(gatewayUrl: string): Promise<DrillRun | undefined> {
  const response = await fetch(`${gatewayUrl}/admin/drills`, { headers: admin, signal: AbortSignal.timeout(5_000) });
  if (response.status === 404) return undefined;
  if (response.status !== 200) throw new Error(`GET /admin/drills → ${response.status}: ${await response.text()}`);
  return (await response.json()) as DrillRun;
}
