import { afterEach, describe, expect, it, vi } from 'vitest';
import { holdRun, RUN_HOLD_MS } from './run-hold.js';
import { LOCAL_RUN_LEASES, type RunLeases } from './run-leases.js';

afterEach(() => {
  vi.useRealTimers();
});

/** Leases that record every hold and release, and grant holds unless told who holds the name. */
function recordingLeases(heldBy?: string) {
  const calls: string[] = [];
  const leases: RunLeases = {
    ...LOCAL_RUN_LEASES,
    hold: async (name, runId, forMs) => (calls.push(`hold ${name} ${runId} ${forMs}`), heldBy),
    release: async (name, runId) => void calls.push(`release ${name} ${runId}`),
  };
  return { leases, calls };
}

describe('holdRun', () => {
  it('renews the hold well within its term while the run lasts, and releases it at the end', async () => {
    vi.useFakeTimers();
    const { leases, calls } = recordingLeases();
    const hold = await holdRun(leases, 'drill', 'drill_1');
    expect(calls).toEqual([`hold drill drill_1 ${RUN_HOLD_MS}`]);
    await vi.advanceTimersByTimeAsync(RUN_HOLD_MS);
    // Three renewals per term: two lost to a blip still keep it.
    expect(calls).toHaveLength(4);
    if ('heldBy' in hold) throw new Error('the hold was granted');
    await hold.release();
    await vi.advanceTimersByTimeAsync(RUN_HOLD_MS);
    expect(calls.slice(4)).toEqual(['release drill drill_1']);
  });

  it('names the run holding it instead, and renews nothing', async () => {
    vi.useFakeTimers();
    const { leases, calls } = recordingLeases('drill_other');
    expect(await holdRun(leases, 'drill', 'drill_2')).toEqual({ heldBy: 'drill_other' });
    await vi.advanceTimersByTimeAsync(RUN_HOLD_MS);
    expect(calls).toHaveLength(1);
  });
});
