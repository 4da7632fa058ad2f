import type { AttemptRecord } from '../engine/attempt-record.js';

/** No attempt of a request succeeded; carries every attempt so the final error can name them. */
export class AllAttemptsFailedError extends Error {
  readonly attempts: readonly AttemptRecord[];

  constructor(attempts: readonly AttemptRecord[]) {
    super(`all ${attempts.length} attempt(s) failed`);
    this.name = 'AllAttemptsFailedError';
    this.attempts = attempts;
  }
}
