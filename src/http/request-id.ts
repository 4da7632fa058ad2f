import { randomBytes } from 'node:crypto';

/** Distinguishes this process's ids from another replica's started in the same millisecond. */
const PROCESS_TAG = randomBytes(4).toString('hex');
let sequence = 0;

/**
 * `req_` + time (so ids sort by creation) + a per-process tag + a counter: the record id and
 * `x-request-id`. Unique without per-request randomness, which is measurable on the hot path.
 */
export function newRequestId(): string {
  sequence = (sequence + 1) % 0x100000;
  return `req_${Date.now().toString(36)}${PROCESS_TAG}${sequence.toString(36).padStart(4, '0')}`;
}
