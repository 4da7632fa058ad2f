/**
 * The store could not answer in time (locked, down, its thread gone): callers answer 503
 * `gateway_unavailable` or spill, never wait longer and never report a bug.
 */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}
