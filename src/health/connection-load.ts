/**
 * Attempts in flight per connection, for load shedding (docs/health.md): a connection at its
 * `max_in_flight` is skipped as busy — not failed — and nothing is queued.
 */
export class ConnectionLoad {
  readonly #inFlight = new Map<string, number>();

  /** Takes a slot on the connection; false when it is full. */
  tryAcquire(connection: string, maxInFlight: number): boolean {
    const current = this.#inFlight.get(connection) ?? 0;
    if (current >= maxInFlight) return false;
    this.#inFlight.set(connection, current + 1);
    return true;
  }

  release(connection: string): void {
    const current = this.#inFlight.get(connection) ?? 0;
    if (current <= 1) this.#inFlight.delete(connection);
    else this.#inFlight.set(connection, current - 1);
  }

  inFlight(connection: string): number {
    return this.#inFlight.get(connection) ?? 0;
  }
}
