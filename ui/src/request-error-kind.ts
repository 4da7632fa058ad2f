import { FailureKind } from '../../src/core/failure-kind.js';
import { REFUSAL_CLASSES, requestOutcome } from '../../src/core/request-outcome.js';
import type { RequestErrorKind, RequestRecord } from './admin-api-types.js';

/** Every value `GET /admin/requests?error_kind=` takes: the upstream failure kinds, then the refusals. */
export const REQUEST_ERROR_KINDS: readonly RequestErrorKind[] = [
  ...Object.values(FailureKind).filter((kind) => kind !== 'ok'),
  ...REFUSAL_CLASSES.map((refusal) => `refused_${refusal}` as const),
];

/**
 * What went wrong, as the `error_kind` filter names it — the gateway's own reading of the record
 * (src/core/request-outcome.ts), so a row shows what the filter matches; null when it was served
 * or the caller left.
 */
export function recordErrorKind(record: RequestRecord): string | null {
  const outcome = requestOutcome(record);
  if (outcome.startsWith('refused_')) return outcome;
  return outcome.startsWith('failed_') ? outcome.slice('failed_'.length) : null;
}

/** How the page names an error kind: `refused: budget` for `refused_budget`, a failure kind as it is. */
export function errorKindLabel(kind: string): string {
  return kind.replace(/^refused_/, 'refused: ');
}
