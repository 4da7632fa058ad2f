import type { BudgetPeriod } from './virtual-key.js';

/**
 * When the budget period containing `nowMs` began, in UTC (ISO 8601): midnight for `day`, the
 * 1st for `month`, the key's creation for `total`. UTC so every replica and time zone agrees on
 * when a daily budget resets.
 */
export function periodStart(period: BudgetPeriod, keyCreatedAt: string, nowMs: number): string {
  const now = new Date(nowMs);
  switch (period) {
    case 'day':
      return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())).toISOString();
    case 'month':
      return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
    case 'total':
      return keyCreatedAt;
  }
}
