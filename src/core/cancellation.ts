/**
 * One link of the engine's abort tree — the caller, each attempt, the upstream transfer (DESIGN:
 * deadline → attempt → transport): aborted at most once, with a reason, telling whoever listens.
 * The engine uses these rather than AbortController: on Node 20 creating an AbortSignal and
 * listening to it cost several microseconds, paid for the caller and for every attempt of every
 * request, and nothing here needs what a signal adds (DOM events, transfer between threads).
 * Listeners run synchronously, in the order they were added.
 */
export class Cancellation {
  #aborted = false;
  #reason: unknown;
  #listeners: ((reason: unknown) => void)[] | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  /** Why it was aborted; undefined until then. */
  get reason(): unknown {
    return this.#reason;
  }

  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners) for (const listener of listeners) listener(reason);
  }

  /** Hears the abort to come (check `aborted` for one that already happened); returns how to stop listening. */
  onAbort(listener: (reason: unknown) => void): () => void {
    (this.#listeners ??= []).push(listener);
    return () => {
      const index = this.#listeners?.indexOf(listener) ?? -1;
      if (index >= 0) this.#listeners!.splice(index, 1);
    };
  }
}

/** The reason a hedge race's loser is aborted: the request has its answer from another attempt. */
export const ANSWERED_ELSEWHERE = new Error('another attempt of this request answered first');

/** The reason a request's work stops when its caller closes the connection before the answer is done. */
export const CALLER_LEFT = new Error('the caller closed the connection');

/**
 * The reason a request's work stops when the gateway shuts down and `server.drain_ms` has run out
 * before its answer ended; a stream under way is told this in its dialect's error event.
 */
export const DRAIN_TIME_UP = new Error('the gateway is shutting down and server.drain_ms ran out before this answer ended; send the request again');
