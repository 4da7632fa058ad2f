import type { SkipReason } from '../core/skipped-target.js';
import type { AttemptRecordEntry, RequestRecord, SkippedTargetEntry } from '../core/request-record.js';
import { formatMs } from './format-ms.js';

/**
 * A record as an operator reads it, in words the dashboard's request page and `switchyard
 * requests show` both print, so the two never tell an incident differently.
 */
export interface RecordDescription {
  /** The error the caller got, `type code: message`; null when it got an answer. */
  error: string | null;
  /** For each attempt, in order: why the gateway moved on, or that it served the answer. */
  attempts: string[];
  /** For each skipped target, in order: why it got no attempt and the failure it stands for, `ejected (timeout)`. */
  skipped: string[];
}

const SKIP_REASONS = {
  ejected: 'ejected',
  cooling: 'cooling',
  structural: 'structurally down',
  busy: 'busy (at its in-flight limit)',
  context_window: 'context window too small for the input',
} as const satisfies Record<SkipReason, string>;

export function describeRecord(record: RequestRecord): RecordDescription {
  return {
    error: errorOf(record),
    attempts: record.attempts.map((attempt, index) => movedOn(attempt, index === record.attempts.length - 1, record)),
    skipped: (record.skipped ?? []).map(skipReason),
  };
}

function errorOf(record: RequestRecord): string | null {
  if (record.error_code === null) return null;
  const named = record.error_type === undefined || record.error_type === record.error_code ? record.error_code : `${record.error_type} ${record.error_code}`;
  return record.error_message ? `${named}: ${record.error_message}` : named;
}

function movedOn(attempt: AttemptRecordEntry, last: boolean, record: RequestRecord): string {
  if (attempt.kind === 'ok') return last ? 'served the answer' : 'answered';
  const detail = [attempt.error_type === attempt.kind ? null : attempt.error_type, attempt.message].filter(Boolean).join(': ');
  const wait = attempt.retry_after_ms === null ? '' : ` (retry after ${formatMs(attempt.retry_after_ms)})`;
  const why = `${attempt.kind}${detail ? ` — ${detail}` : ''}${wait}`;
  return last ? `${why}; nothing left to try (${record.status})` : why;
}

function skipReason(skip: SkippedTargetEntry): string {
  const reason = SKIP_REASONS[skip.reason] ?? skip.reason;
  return skip.kind === undefined ? reason : `${reason} (${skip.kind})`;
}
