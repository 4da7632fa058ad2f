/**
 * The longest delay Node's timers take: a longer one overflows their 32-bit field and fires after
 * 1 ms instead — a deadline days away would time out at once.
 */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** `ms` as a delay every timer can take: never negative, never past `MAX_TIMER_DELAY_MS`. */
export function timerDelayMs(ms: number): number {
  return Math.min(Math.max(0, ms), MAX_TIMER_DELAY_MS);
}
