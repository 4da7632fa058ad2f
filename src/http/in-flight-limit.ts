import { overloadedError } from '../errors/overloaded-error.js';

/**
 * `server.max_in_flight`: the requests the gateway is working on, each counted from when its
 * body has been read until it ends — a caller still sending its body holds no slot, so slow
 * senders cannot lock the others out. Past the limit a request is refused at once (503), never
 * queued.
 */
export class InFlightLimit {
  readonly #max: () => number;
  readonly #holders = new Set<object>();

  constructor(max: () => number) {
    this.#max = max;
  }

  enter(request: object): void {
    if (this.#holders.size >= this.#max()) {
      throw overloadedError('The gateway is at server.max_in_flight; try again shortly.');
    }
    this.#holders.add(request);
  }

  /** Frees the request's slot, if it took one. */
  leave(request: object): void {
    this.#holders.delete(request);
  }
}
