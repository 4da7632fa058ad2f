import { periodStart } from './budget-period.js';
import type { BudgetPeriod, KeyKind, VirtualKey } from './virtual-key.js';
import { microsToUsd } from '../metering/money.js';

export type KeyStatus = 'active' | 'expired' | 'revoked';

/** A key as the admin API shows it. Never the secret, never its hash. */
export interface KeyView {
  id: string;
  name: string;
  key_prefix: string;
  routes: readonly string[] | null;
  direct: boolean;
  budget: { usd: number; period: BudgetPeriod } | null;
  limits: { rpm: number | null; tpm: number | null };
  expires_at: string | null;
  created_at: string;
  revoked_at: string | null;
  status: KeyStatus;
  /** The team's id; null: none. */
  team: string | null;
  kind: KeyKind;
  /** Who made an exploration key for themselves (an actor's id); null for service keys. */
  owner: string | null;
}

/** The answer to creating a key: the only place the secret (`key`) ever appears. */
export type CreatedKeyView = Omit<KeyView, 'revoked_at' | 'status'> & { key: string };

/** `GET /admin/keys/:id/spend`: spent in the current budget period. */
export interface KeySpendView {
  key_id: string;
  usd: number;
  reserved_usd: number;
  budget_usd: number | null;
  period: BudgetPeriod | null;
  /** Without a budget, spend counts from the key's creation. */
  period_start: string;
}

export function keyView(key: VirtualKey, nowMs: number): KeyView {
  return {
    id: key.id,
    name: key.name,
    key_prefix: key.keyPrefix,
    routes: key.routes,
    direct: key.direct,
    budget: key.budget === null ? null : { usd: microsToUsd(key.budget.usdMicros), period: key.budget.period },
    limits: { rpm: key.rpm, tpm: key.tpm },
    expires_at: key.expiresAt,
    created_at: key.createdAt,
    revoked_at: key.revokedAt,
    status: keyStatus(key, nowMs),
    team: key.teamId,
    kind: key.kind,
    owner: key.ownerId,
  };
}

export function createdKeyView(key: VirtualKey, secret: string): CreatedKeyView {
  const { revoked_at: _revokedAt, status: _status, ...view } = keyView(key, Date.parse(key.createdAt));
  return { ...view, key: secret };
}

/** Spend is zero until the ledger exists; the period is already the real one. */
export function keySpendView(key: VirtualKey, nowMs: number): KeySpendView {
  return {
    key_id: key.id,
    usd: 0,
    reserved_usd: 0,
    budget_usd: key.budget === null ? null : microsToUsd(key.budget.usdMicros),
    period: key.budget?.period ?? null,
    period_start: periodStart(key.budget?.period ?? 'total', key.createdAt, nowMs),
  };
}

function keyStatus(key: VirtualKey, nowMs: number): KeyStatus {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= nowMs) return 'expired';
  return 'active';
}
