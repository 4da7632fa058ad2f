import type { FailureKind } from './failure-kind.js';
import type { RequestRecord } from './request-record.js';

/**
 * Why the gateway answered a request itself, without a provider's answer: a bad or missing key
 * or a model the key may not use (`auth`), a key's rpm/tpm limit (`rate_limit`), a key's budget
 * (`budget`), a request it could not take as sent (`bad_request`), anything else (`other`:
 * overload, a store outage, a gateway bug).
 */
export const REFUSAL_CLASSES = ['auth', 'rate_limit', 'budget', 'bad_request', 'other'] as const;
export type RefusalClass = (typeof REFUSAL_CLASSES)[number];

/**
 * Where one request ended, as the incident view counts it, each request in exactly one:
 * served (first try, or after a failover), refused by the gateway (by class), failed upstream
 * (by the last attempt's failure kind; with no attempt because every target was out, by the
 * failure the last skipped target stands for), or cancelled by the caller. Stored with the record
 * (`requests.outcome`) and in the per-minute rollups, so `GET /admin/stats` and the
 * `error_kind` filter of `GET /admin/requests` count the same thing.
 */
export type RequestOutcome = 'served_first_try' | 'served_after_failover' | 'cancelled' | `refused_${RefusalClass}` | `failed_${FailureKind}`;

const AUTH_CODES: ReadonlySet<string> = new Set(['invalid_api_key', 'model_not_allowed']);

export function requestOutcome(record: Pick<RequestRecord, 'status' | 'http_status' | 'error_code' | 'attempts' | 'skipped' | 'fallback'>): RequestOutcome {
  if (record.status === 'cancelled') return 'cancelled';
  if (record.status === 'ok') return record.attempts.length > 1 || record.fallback === true ? 'served_after_failover' : 'served_first_try';
  if (record.status !== 'rejected') {
    // Every target skipped (cooling after a provider's 429, ejected, structurally down) is the
    // providers failing, not the key's own limit, whatever code the caller saw.
    const kind = record.attempts.at(-1)?.kind ?? record.skipped?.findLast((skip) => skip.kind !== undefined)?.kind;
    // Nothing tried and nothing out for a failure: the gateway's own (a bug, a deadline gone before
    // any attempt), or a record from before skips named their failure, which keeps its class.
    return kind === undefined ? 'refused_other' : `failed_${kind}`;
  }
  return `refused_${refusalClass(record.error_code, record.http_status)}`;
}

function refusalClass(code: string | null, httpStatus: number): RefusalClass {
  if (code === 'budget_exceeded') return 'budget';
  if (code === 'rate_limit_exceeded') return 'rate_limit';
  if ((code !== null && AUTH_CODES.has(code)) || httpStatus === 401 || httpStatus === 403) return 'auth';
  // 4xx the gateway raised itself: the request as sent cannot be served (bad JSON, unknown model, too large).
  if (httpStatus >= 400 && httpStatus < 500 && httpStatus !== 429) return 'bad_request';
  return 'other';
}
