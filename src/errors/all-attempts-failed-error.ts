import type { AttemptRecord } from '../core/attempt-record.js';
import type { SkippedTarget } from '../core/skipped-target.js';

/** No attempt of a request succeeded; carries every attempt so the final error can name them. */
export class AllAttemptsFailedError extends Error {
  readonly attempts: readonly AttemptRecord[];
  /** How long until a target of the route leaves cooling, when any is cooling (the final 429's retry-after). */
  readonly coolingEndsInMs: number | undefined;

  /** Planned targets passed over without an attempt; undefined when none were. */
  readonly skipped: readonly SkippedTarget[] | undefined;

  constructor(attempts: readonly AttemptRecord[], coolingEndsInMs?: number, skipped?: readonly SkippedTarget[]) {
    super(`all ${attempts.length} attempt(s) failed`);
    this.name = 'AllAttemptsFailedError';
    this.attempts = attempts;
    this.coolingEndsInMs = coolingEndsInMs;
    this.skipped = skipped;
  }
}
