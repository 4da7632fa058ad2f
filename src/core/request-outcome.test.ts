import { describe, expect, it } from 'vitest';
import { requestOutcome } from './request-outcome.js';
import type { AttemptFailureKind } from './failure-policy.js';
import type { RequestRecord } from './request-record.js';
import type { SkipReason } from './skipped-target.js';

const attempt = (kind: string) => ({ kind }) as RequestRecord['attempts'][number];
const skip = (reason: SkipReason, kind?: AttemptFailureKind) => ({ connection: 'c', model: 'm', reason, ...(kind === undefined ? {} : { kind }) });
const ended = (fields: Partial<RequestRecord>) => ({ status: 'rejected', http_status: 400, error_code: null, attempts: [], ...fields }) as RequestRecord;

describe('requestOutcome', () => {
  it('classes refusals by their code first and their status after', () => {
    expect(requestOutcome(ended({ http_status: 429, error_code: 'budget_exceeded' }))).toBe('refused_budget');
    expect(requestOutcome(ended({ http_status: 429, error_code: 'rate_limit_exceeded' }))).toBe('refused_rate_limit');
    expect(requestOutcome(ended({ http_status: 401, error_code: 'invalid_api_key' }))).toBe('refused_auth');
    expect(requestOutcome(ended({ http_status: 403, error_code: 'model_not_allowed' }))).toBe('refused_auth');
    expect(requestOutcome(ended({ http_status: 404, error_code: 'model_not_found' }))).toBe('refused_bad_request');
    expect(requestOutcome(ended({ http_status: 503, error_code: 'overloaded' }))).toBe('refused_other');
    // Failed with nothing tried and nothing out for a failure: the gateway's own (a bug, no time left).
    expect(requestOutcome(ended({ status: 'failed', http_status: 500, error_code: 'internal_error' }))).toBe('refused_other');
    expect(requestOutcome(ended({ status: 'failed', http_status: 504, error_code: 'upstream_timeout', skipped: [skip('busy')] }))).toBe('refused_other');
  });

  it('classes a request every target was skipped for as failed upstream by what the skips stand for, never as refused', () => {
    // Every target cooling after a provider's 429: the caller sees rate_limit_exceeded, but no key limit refused it.
    expect(requestOutcome(ended({ status: 'failed', http_status: 429, error_code: 'rate_limit_exceeded', skipped: [skip('cooling', 'rate_limit'), skip('cooling', 'rate_limit')] }))).toBe(
      'failed_rate_limit',
    );
    expect(requestOutcome(ended({ status: 'failed', http_status: 504, error_code: 'upstream_timeout', skipped: [skip('ejected', 'timeout')] }))).toBe('failed_timeout');
    expect(requestOutcome(ended({ status: 'failed', http_status: 429, error_code: 'quota_exhausted', skipped: [skip('structural', 'quota_exhausted')] }))).toBe('failed_quota_exhausted');
    // Like the last attempt's kind, the last skip that stands for a failure decides.
    expect(requestOutcome(ended({ status: 'failed', http_status: 502, error_code: 'upstream_error', skipped: [skip('ejected', 'server_error'), skip('cooling', 'rate_limit'), skip('busy')] }))).toBe(
      'failed_rate_limit',
    );
    // A record stored before skips named their failure keeps the class it was counted under.
    expect(requestOutcome(ended({ status: 'failed', http_status: 429, error_code: 'rate_limit_exceeded', skipped: [skip('cooling')] }))).toBe('refused_other');
  });

  it("keys upstream failures by the last attempt's kind, and tells a failover from a first try", () => {
    expect(requestOutcome(ended({ status: 'failed', http_status: 502, attempts: [attempt('timeout'), attempt('server_error')] }))).toBe('failed_server_error');
    expect(requestOutcome(ended({ status: 'interrupted', http_status: 200, attempts: [attempt('stream_interrupted')] }))).toBe('failed_stream_interrupted');
    expect(requestOutcome(ended({ status: 'ok', http_status: 200, attempts: [attempt('ok')], fallback: false }))).toBe('served_first_try');
    expect(requestOutcome(ended({ status: 'ok', http_status: 200, attempts: [attempt('rate_limit'), attempt('ok')] }))).toBe('served_after_failover');
    expect(requestOutcome(ended({ status: 'ok', http_status: 200, attempts: [attempt('ok')], fallback: true }))).toBe('served_after_failover');
    expect(requestOutcome(ended({ status: 'cancelled', http_status: 499, attempts: [attempt('cancelled')] }))).toBe('cancelled');
  });
});
