import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SignInDeps } from './sign-in-deps.js';
import { clearedFlowCookie } from './sign-in-flow.js';
import { sendSignInPage, type SignInPage } from './sign-in-page.js';

/** Why a sign-in was refused, as the `signin.refused` row says. */
export type RefusalReason = 'bad_state' | 'identity_provider_error' | 'exchange_failed' | 'no_mapped_role';

export interface Refusal {
  reason: RefusalReason;
  status: number;
  page: SignInPage;
  /** Who, when the identity provider said so. */
  person?: { sub: string; name: string };
  /** What the row adds to the reason: never a token, the code or the client secret. */
  detail?: Record<string, unknown>;
}

/**
 * Answers a refused sign-in with its page and appends its `signin.refused` row. A row that cannot
 * be written is logged: the person is refused all the same.
 */
export async function refuseSignIn(request: IncomingMessage, response: ServerResponse, requestId: string, deps: SignInDeps, secure: boolean, refusal: Refusal): Promise<void> {
  const { person } = refusal;
  const actor = { kind: 'user' as const, id: person?.sub ?? 'unknown', name: person?.name ?? 'unknown', role: null };
  deps.logger.warn({ reason: refusal.reason, sub: person?.sub, request_id: requestId, ...refusal.detail }, `sign-in refused: ${refusal.reason}`);
  try {
    await deps.audit.event(
      { actor, requestId, sourceIp: request.socket.remoteAddress ?? null },
      { action: 'signin.refused', target: { kind: 'user', id: person?.sub ?? null }, after: { reason: refusal.reason, ...refusal.detail } },
    );
  } catch (error) {
    deps.logger.error({ err: error, request_id: requestId }, 'the signin.refused row could not be written');
  }
  sendSignInPage(response, refusal.status, refusal.page, { 'set-cookie': clearedFlowCookie(secure) });
}
