import { CALLER_LEFT } from '../core/cancellation.js';
import { finalError, type FinalError } from '../engine/final-error.js';
import { AllAttemptsFailedError } from '../errors/all-attempts-failed-error.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { RecordDraft } from '../records/record-draft.js';

/**
 * What ended a request without an answer, in its record — one reading for callers' requests and
 * the gateway's own. A caller that left before its body was whole is `cancelled`; a request whose
 * every attempt failed keeps those attempts and its skips and is `failed` with the final error
 * (docs/lifecycle.md), which is returned for the answer; a refusal is `rejected` with its status
 * and code; anything else is a 500 `internal_error`.
 */
export function recordFailure(draft: RecordDraft, error: AllAttemptsFailedError): FinalError;
export function recordFailure(draft: RecordDraft, error: unknown): FinalError | undefined;
export function recordFailure(draft: RecordDraft, error: unknown): FinalError | undefined {
  if (error instanceof AllAttemptsFailedError) {
    draft.attempts = error.attempts;
    draft.skipped = error.skipped;
    const final = finalError(error.attempts, error.coolingEndsInMs, error.skipped);
    draft.fail('failed', final.status, final);
    return final;
  }
  if (error === CALLER_LEFT) draft.fail('cancelled', 499, { code: 'cancelled' });
  else if (error instanceof GatewayError) draft.fail('rejected', error.status, error);
  // The record keeps what a caller was told, which is no more than that the gateway failed (the
  // HTTP edge's 500); the gateway's own request has no caller, and keeps the error's text.
  else draft.fail('failed', 500, { code: 'internal_error', type: 'server_error', message: draft.origin === 'caller' ? null : String(error) });
  return undefined;
}
