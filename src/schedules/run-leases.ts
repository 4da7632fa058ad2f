/**
 * Who runs a drill or a canary. Replicas sharing state agree through Redis so the fleet runs each
 * scheduled drill or canary once per interval, not once per replica (`claim`), and runs at most
 * one drill, and one canary per route, at a time (`hold`); a gateway alone always may.
 */
export interface RunLeases {
  /** Whether this process may run `name` now; held for `forMs` (or until renewed) when granted. */
  claim(name: string, forMs: number): Promise<boolean>;
  /** Keeps a held lease for another `forMs`, while a run outlasts its interval. */
  renew(name: string, forMs: number): Promise<void>;
  /**
   * Marks run `runId` as the one running `name`, fleet-wide, for `forMs`; holding it again renews
   * it. Answers undefined when granted, else the id of the run that holds it.
   */
  hold(name: string, runId: string, forMs: number): Promise<string | undefined>;
  /** Ends run `runId`'s hold of `name`, if it still has it. */
  release(name: string, runId: string): Promise<void>;
}

/** A gateway alone: every claim and hold is granted (its runners keep their own one-at-a-time). */
export const LOCAL_RUN_LEASES: RunLeases = {
  claim: async () => true,
  renew: async () => undefined,
  hold: async () => undefined,
  release: async () => undefined,
};
