import { vi } from 'vitest';

/**
 * Moves the fake clock on until `work` settles. Flushes queued behind slow writes and backed-off
 * retries can need more fake time than any fixed step gives, and a promise awaited while nothing
 * moves the clock never settles; false when a minute of fake time was not enough (a real hang).
 */
export async function settledInFakeTime(work: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void work.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let waitedMs = 0; !settled && waitedMs < 60_000; waitedMs += 50) await vi.advanceTimersByTimeAsync(50);
  return settled;
}
