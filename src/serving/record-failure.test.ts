import { describe, expect, it } from 'vitest';
import type { AttemptRecord } from '../core/attempt-record.js';
import { CALLER_LEFT } from '../core/cancellation.js';
import { finalError } from '../engine/final-error.js';
import { AllAttemptsFailedError } from '../errors/all-attempts-failed-error.js';
import { GatewayError } from '../errors/gateway-error.js';
import { RecordDraft } from '../records/record-draft.js';
import { recordFailure } from './record-failure.js';

const rateLimited: AttemptRecord = { n: 1, connection: 'c', provider: 'openai', model: 'm', kind: 'rate_limit', retryAfterMs: 2_000, startedMs: 0, latencyMs: 1, committed: false, malformedEvents: 0 };

function outcomeOf(draft: RecordDraft) {
  const { status, http_status: httpStatus, error_code: errorCode, error_message: errorMessage, error_type: errorType } = draft.toRecord(1);
  return { status, httpStatus, errorCode, errorMessage, errorType };
}

describe('recordFailure', () => {
  it('every attempt failing keeps the attempts and skips and records the final error, which it returns', () => {
    const draft = new RecordDraft('r', 0);
    const skipped = [{ connection: 'c2', model: 'm2', reason: 'ejected' as const, kind: 'server_error' as const }];
    const final = recordFailure(draft, new AllAttemptsFailedError([rateLimited], undefined, skipped));
    expect(final).toEqual(finalError([rateLimited], undefined, skipped));
    expect(draft.attempts).toEqual([rateLimited]);
    expect(draft.skipped).toEqual(skipped);
    expect(outcomeOf(draft)).toEqual({ status: 'failed', httpStatus: final.status, errorCode: final.code, errorMessage: final.message, errorType: 'upstream_error' });
    expect(final.status).toBe(502);
  });

  it('a refusal is rejected with its status, code, message and type; a caller that left is cancelled, with no type', () => {
    const refused = new RecordDraft('r', 0);
    expect(recordFailure(refused, new GatewayError('over budget', { status: 402, code: 'budget_exceeded', type: 'insufficient_quota' }))).toBeUndefined();
    expect(outcomeOf(refused)).toEqual({ status: 'rejected', httpStatus: 402, errorCode: 'budget_exceeded', errorMessage: 'over budget', errorType: 'insufficient_quota' });

    const left = new RecordDraft('r', 0);
    recordFailure(left, CALLER_LEFT);
    expect(outcomeOf(left)).toEqual({ status: 'cancelled', httpStatus: 499, errorCode: 'cancelled', errorMessage: null, errorType: undefined });
  });

  it("anything else is a 500 internal_error, whose text only the gateway's own request keeps (a caller was told no more)", () => {
    const callers = new RecordDraft('r', 0);
    recordFailure(callers, new TypeError('boom'));
    expect(outcomeOf(callers)).toEqual({ status: 'failed', httpStatus: 500, errorCode: 'internal_error', errorMessage: null, errorType: 'server_error' });

    const drills = new RecordDraft('r', 0);
    drills.origin = 'drill';
    recordFailure(drills, new TypeError('boom'));
    expect(outcomeOf(drills)).toEqual({ status: 'failed', httpStatus: 500, errorCode: 'internal_error', errorMessage: 'TypeError: boom', errorType: 'server_error' });
  });
});
