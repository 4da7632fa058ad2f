import type { KeyBudget } from '../keys/virtual-key.js';

/** A team's exploration policy (SPEC §15): what its members' exploration keys may be at most. */
export interface ExplorationPolicy {
  /** The longest an exploration key lives, and how long one made without `expires_at` does. */
  maxTtlS: number;
  rpm: number | null;
  tpm: number | null;
  budget: KeyBudget | null;
}

/** Seven days: an exploration key made without a policy lives at most this long. */
export const DEFAULT_EXPLORATION_TTL_S = 7 * 24 * 60 * 60;

/** A team as the gateway uses it: its budget and limits apply across its keys besides each key's own. */
export interface Team {
  readonly id: string;
  readonly name: string;
  readonly budget: KeyBudget | null;
  readonly rpm: number | null;
  readonly tpm: number | null;
  /** Route globs bounding its keys' routes; null allows every route. */
  readonly routes: readonly string[] | null;
  readonly exploration: ExplorationPolicy;
  /** ISO 8601. */
  readonly createdAt: string;
  /** ISO 8601. */
  readonly updatedAt: string;
}
