import type { RunLeases } from './run-leases.js';

/** How long a run's hold lasts unrenewed: the longest a replica that died mid-run keeps the others from running. */
export const RUN_HOLD_MS = 30_000;
/** Renewed this often while the run lasts, so a renewal or two lost to a Redis blip do not let it lapse. */
const RENEW_EVERY_MS = RUN_HOLD_MS / 3;

/** Another run holds the name (its id), or this one does until it releases it. */
export type RunHold = { heldBy: string } | { release(): Promise<void> };

/**
 * Holds `name` for run `runId` while the run lasts: renewed in the background, released by the
 * run's end. A hold taken while Redis could not be reached is taken again by a renewal once it
 * answers.
 */
export async function holdRun(leases: RunLeases, name: string, runId: string): Promise<RunHold> {
  const heldBy = await leases.hold(name, runId, RUN_HOLD_MS);
  if (heldBy !== undefined) return { heldBy };
  const renewal = setInterval(() => void leases.hold(name, runId, RUN_HOLD_MS), RENEW_EVERY_MS).unref();
  return {
    async release() {
      clearInterval(renewal);
      await leases.release(name, runId);
    },
  };
}
