import { describe, expect, it } from 'vitest';
import { MAX_TIMER_DELAY_MS, timerDelayMs } from './timer-delay.js';

describe('timerDelayMs', () => {
  it('keeps ordinary delays, floors negative ones at zero and caps what would overflow a timer', () => {
    expect(timerDelayMs(1_500)).toBe(1_500);
    expect(timerDelayMs(-20)).toBe(0);
    expect(timerDelayMs(2_147_484_000)).toBe(MAX_TIMER_DELAY_MS);
    expect(timerDelayMs(Number.POSITIVE_INFINITY)).toBe(MAX_TIMER_DELAY_MS);
  });
});
