import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { GatewayError } from '../errors/gateway-error.js';
import { hasBody, readJsonBody } from '../http/read-json-body.js';
import { noStore, sendJson } from '../http/send.js';
import { FAULT_NAMES } from '../rehearsal/faults.js';
import { rehearsalJson } from '../rehearsal/rehearsal-json.js';
import type { Rehearsal, RehearsalOptions } from '../rehearsal/run-rehearsal.js';
import type { AdminRehearsalResponse } from './admin-api-types.js';

export interface AdminRehearsalsDeps {
  /** Rehearses the config in force (rehearsal/, handed the composition root's gateway). */
  rehearse(options: RehearsalOptions): Promise<Rehearsal>;
}

const MAX_BODY_BYTES = 64 * 1024;
const BODY_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_WAIT_S = 10;

const bodySchema = z.strictObject({
  routes: z.array(z.string().min(1)).min(1).optional(),
  faults: z.array(z.enum(FAULT_NAMES)).min(1).optional(),
  max_wait_s: z.number().positive().max(60).optional(),
});

/**
 * `POST /admin/rehearsals` with an optional `{"routes": [...], "faults": [...], "max_wait_s": N}`:
 * rehearses the config in force against the fault catalogue (docs/rehearse.md) and answers 200
 * with the whole result once it has run, as `switchyard rehearse --json` prints it. It changes
 * nothing and calls no provider, so it is not audited.
 */
export async function handleRunRehearsal(request: IncomingMessage, response: ServerResponse, deps: AdminRehearsalsDeps): Promise<void> {
  const asked = hasBody(request) ? (await readJsonBody(request, { maxBytes: MAX_BODY_BYTES, timeoutMs: BODY_TIMEOUT_MS })).json : {};
  const parsed = bodySchema.safeParse(asked);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const param = issue.code === 'unrecognized_keys' ? issue.keys[0]! : issue.path.length > 0 ? issue.path.join('.') : 'body';
    throw new GatewayError(`Invalid rehearsal request: ${param}: ${issue.message}.`, { status: 400, code: 'invalid_request_error', type: 'invalid_request_error', param });
  }
  const { routes, faults, max_wait_s: maxWaitS = DEFAULT_MAX_WAIT_S } = parsed.data;
  const rehearsal = await deps.rehearse({ ...(routes ? { routes } : {}), ...(faults ? { faults } : {}), maxWaitMs: maxWaitS * 1000 });
  sendJson(response, 200, rehearsalJson(rehearsal, maxWaitS) satisfies AdminRehearsalResponse, noStore());
}
