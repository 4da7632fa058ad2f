import type { Cancellation } from '../core/cancellation.js';
import { timerDelayMs } from '../core/timer-delay.js';

/** Waits `ms`, or less if `cancellation` aborts first; resolves false when it was cut short. */
export function sleep(ms: number, cancellation: Cancellation): Promise<boolean> {
  if (cancellation.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const stopListening = cancellation.onAbort(() => {
      clearTimeout(timer);
      resolve(false);
    });
    const timer = setTimeout(() => {
      stopListening();
      resolve(true);
    }, timerDelayMs(ms));
  });
}
