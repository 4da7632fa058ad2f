import type { RequestOrigin } from '../core/request-origin.js';
import { requestOutcome, type RequestOutcome } from '../core/request-outcome.js';
import type { RequestRecord } from '../core/request-record.js';

export const MINUTE_MS = 60_000;

/**
 * What the store derives from a record, worked out once when a batch is written and handed to its
 * row and to every rollup: each used to work out the start (a `Date.parse`), the origin and the
 * outcome again.
 */
export interface RecordFacts {
  record: RequestRecord;
  /** When the request started, epoch milliseconds (`createdMsOf`). */
  createdMs: number;
  /** The epoch minute it started in, the rollups' key. */
  minute: number;
  origin: RequestOrigin;
  outcome: RequestOutcome;
}

export function recordFacts(record: RequestRecord): RecordFacts {
  const createdMs = createdMsOf(record);
  return { record, createdMs, minute: Math.floor(createdMs / MINUTE_MS), origin: storedOrigin(record), outcome: requestOutcome(record) };
}

/** When the record's request started, epoch milliseconds. */
export function createdMsOf(record: RequestRecord): number {
  const createdMs = Date.parse(record.created_at);
  // A malformed timestamp must not make the batch fail forever; file it under "now".
  return Number.isFinite(createdMs) ? createdMs : Date.now();
}

/**
 * A spill file written by a build from before origins holds records and spend rows without one;
 * replayed after an upgrade, they are stored as that build marked them (a probe, or a caller).
 */
export function storedOrigin(item: { origin?: RequestOrigin; probe?: boolean }): RequestOrigin {
  return item.origin ?? (item.probe === true ? 'probe' : 'caller');
}
