import { setTimeout as delay } from 'node:timers/promises';

/** Waits `ms`, or less if the signal aborts first; resolves false when it was cut short. */
export async function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await delay(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}
