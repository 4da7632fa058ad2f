import { describe, expect, it } from 'vitest';
import { requestOutcome } from './request-outcome.js';
import type { RequestRecord } from './request-record.js';

const attempt = (kind: string) => ({ kind }) as RequestRecord['attempts'][number];
const ended = (fields: Partial<RequestRecord>) => ({ status: 'rejected', http_status: 400, error_code: null, attempts: [], ...fields }) as RequestRecord;

describe('requestOutcome', () => {
  it('classes refusals by their code first and their status after', () => {
    expect(requestOutcome(ended({ http_status: 429, error_code: 'budget_exceeded' }))).toBe('refused_budget');
    expect(requestOutcome(ended({ http_status: 429, error_code: 'rate_limit_exceeded' }))).toBe('refused_rate_limit');
    expect(requestOutcome(ended({ http_status: 401, error_code: 'invalid_api_key' }))).toBe('refused_auth');
    expect(requestOutcome(ended({ http_status: 403, error_code: 'model_not_allowed' }))).toBe('refused_auth');
    expect(requestOutcome(ended({ http_status: 404, error_code: 'model_not_found' }))).toBe('refused_bad_request');
    expect(requestOutcome(ended({ http_status: 503, error_code: 'overloaded' }))).toBe('refused_other');
    // Failed without an attempt (every target out): the gateway answered itself.
    expect(requestOutcome(ended({ status: 'failed', http_status: 503, error_code: 'upstream_error' }))).toBe('refused_other');
    // Every target cooling after a provider's 429: the caller sees rate_limit_exceeded, but no key limit refused it.
    expect(requestOutcome(ended({ status: 'failed', http_status: 429, error_code: 'rate_limit_exceeded' }))).toBe('refused_other');
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
