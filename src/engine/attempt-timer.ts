import type { Cancellation } from '../core/cancellation.js';
import { timerDelayMs } from '../core/timer-delay.js';

/** Why the gateway aborted an attempt: a phase (first token, idle) or the caller's deadline ran out. */
export class AttemptTimeout extends Error {
  readonly phase: 'deadline' | 'first_token' | 'idle';

  constructor(phase: AttemptTimeout['phase'], afterMs: number) {
    super(phase === 'deadline' ? `deadline reached after ${afterMs} ms` : `no ${phase === 'idle' ? 'event' : 'first token'} within ${afterMs} ms`);
    this.name = 'AttemptTimeout';
    this.phase = phase;
  }
}

/**
 * The timeouts of one attempt as a single abort: a fixed deadline timer plus one phase timer
 * (first token, then idle) that is re-armed cheaply on every upstream event.
 */
export class AttemptTimer {
  readonly #cancellation: Cancellation;
  readonly #deadline: NodeJS.Timeout;
  #phase: NodeJS.Timeout | undefined;

  constructor(cancellation: Cancellation, remainingMs: number) {
    this.#cancellation = cancellation;
    this.#deadline = setTimeout(() => this.#abort(new AttemptTimeout('deadline', remainingMs)), timerDelayMs(remainingMs));
  }

  /** Starts (or replaces) the phase timer. */
  arm(phase: 'first_token' | 'idle', afterMs: number): void {
    clearTimeout(this.#phase);
    this.#phase = setTimeout(() => this.#abort(new AttemptTimeout(phase, afterMs)), timerDelayMs(afterMs));
  }

  /** Restarts the current phase timer from now (per streamed event: no allocation). */
  touch(): void {
    this.#phase?.refresh();
  }

  /** Runs `onExpire` instead of aborting when the phase timer fires (used after the finish event). */
  graceThen(afterMs: number, onExpire: () => void): void {
    clearTimeout(this.#phase);
    this.#phase = setTimeout(onExpire, timerDelayMs(afterMs));
  }

  clear(): void {
    clearTimeout(this.#deadline);
    clearTimeout(this.#phase);
  }

  #abort(reason: AttemptTimeout): void {
    this.#cancellation.abort(reason);
  }
}
