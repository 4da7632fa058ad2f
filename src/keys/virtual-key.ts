export const BUDGET_PERIODS = ['day', 'month', 'total'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

export interface KeyBudget {
  usdMicros: number;
  period: BudgetPeriod;
}

/**
 * A virtual key as the gateway uses it. It carries neither the secret nor its hash, so nothing
 * that renders a key (admin API, CLI, logs) can leak either by accident.
 */
export interface VirtualKey {
  readonly id: string;
  readonly name: string;
  /** The secret's first characters, for telling keys apart. */
  readonly keyPrefix: string;
  /** Route globs the key may use; null allows every route. */
  readonly routes: readonly string[] | null;
  /** Whether the key may use the `connection/model` form (its route globs still apply). */
  readonly direct: boolean;
  readonly budget: KeyBudget | null;
  readonly rpm: number | null;
  readonly tpm: number | null;
  /** ISO 8601; null never expires. */
  readonly expiresAt: string | null;
  /** ISO 8601. */
  readonly createdAt: string;
  /** ISO 8601; null while live. */
  readonly revokedAt: string | null;
  /** The team the key belongs to (its id); null: none. */
  readonly teamId: string | null;
  readonly kind: KeyKind;
  /** Who made an exploration key for themselves (the actor's id); null for service keys. */
  readonly ownerId: string | null;
  /**
   * Only on a key found by the secret a rotation replaced: when that secret stops working (ISO
   * 8601). Authentication judges it on every request, so a cached old secret cannot outlive it.
   */
  readonly replacedSecretExpiresAt?: string;
}

/**
 * A key's team as the request path sees it: what the team adds to each of its keys' own route
 * globs, limits and budget (SPEC §15), both of which must pass. teams/team.ts's `Team` is one;
 * keys/ names only what it needs of it (teams/ stands on keys/, not the other way).
 */
export interface KeyTeam {
  readonly id: string;
  readonly name: string;
  /** Route globs bounding its keys'; null allows every route. */
  readonly routes: readonly string[] | null;
  readonly budget: KeyBudget | null;
  readonly rpm: number | null;
  readonly tpm: number | null;
  /** ISO 8601: where a `total` budget's period starts. */
  readonly createdAt: string;
}

export const KEY_KINDS = ['service', 'exploration'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

/** What creating a key needs; the id, secret and timestamps are the store's to make. */
export interface NewKey {
  name: string;
  routes: readonly string[] | null;
  direct: boolean;
  budget: KeyBudget | null;
  rpm: number | null;
  tpm: number | null;
  expiresAt: string | null;
  teamId: string | null;
  kind: KeyKind;
  ownerId: string | null;
}

/** What `PATCH /admin/keys/:id` may change; a field left out stays as it is, null clears it. */
export type KeyChanges = Partial<Pick<NewKey, 'name' | 'routes' | 'direct' | 'budget' | 'rpm' | 'tpm' | 'expiresAt'>>;
