import { FailureKind } from '../../src/core/failure-kind.js';
import type { RefusalClass, RequestErrorKind, RequestRecord } from './admin-api-types.js';

/** The refusal classes the gateway counts (src/admin/admin-api-types.ts), each with what it covers. */
export const REFUSAL_CLASSES = {
  auth: 'a bad or missing key, or a model the key may not use',
  rate_limit: "a key's requests or tokens per minute",
  budget: "a key's budget",
  bad_request: 'a request the gateway could not take',
  other: 'overload, a store outage, no target left',
} as const satisfies Record<RefusalClass, string>;

/** Every value `GET /admin/requests?error_kind=` takes: the upstream failure kinds, then the refusals. */
export const REQUEST_ERROR_KINDS: readonly RequestErrorKind[] = [
  ...Object.values(FailureKind).filter((kind) => kind !== 'ok'),
  ...(Object.keys(REFUSAL_CLASSES) as RefusalClass[]).map((refusal) => `refused_${refusal}` as const),
];

/**
 * What went wrong, as the record says it: the last attempt's failure kind when a provider was
 * reached, else the code the gateway refused it with; null for an answered request.
 */
export function recordErrorKind(record: RequestRecord): string | null {
  if (record.status === 'ok') return null;
  const last = record.attempts.at(-1);
  if (last && last.kind !== 'ok') return last.kind;
  return record.error_code;
}
