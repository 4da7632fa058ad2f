/**
 * Who runs a scheduled job in this interval. Replicas sharing state agree through Redis so the
 * fleet runs each scheduled drill or canary once per interval, not once per replica; a gateway
 * alone always may.
 */
export interface RunLeases {
  /** Whether this process may run `name` now; held for `forMs` (or until renewed) when granted. */
  claim(name: string, forMs: number): Promise<boolean>;
  /** Keeps a held lease for another `forMs`, while a run outlasts its interval. */
  renew(name: string, forMs: number): Promise<void>;
}

/** A gateway alone: every claim is granted. */
export const LOCAL_RUN_LEASES: RunLeases = {
  claim: async () => true,
  renew: async () => undefined,
};
