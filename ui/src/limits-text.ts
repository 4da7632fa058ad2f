import { formatUsd } from './format-time.js';

/** A key's or a team's budget: `$5.00 / day`. */
export function budgetText(budget: { usd: number; period: string }): string {
  return `${formatUsd(budget.usd)} / ${budget.period}`;
}

/** A key's or a team's requests and tokens per minute: `60 rpm, 10000 tpm`, or `none`. */
export function limitsText(limits: { rpm: number | null; tpm: number | null }): string {
  const parts = [limits.rpm === null ? '' : `${limits.rpm} rpm`, limits.tpm === null ? '' : `${limits.tpm} tpm`].filter(Boolean);
  return parts.length === 0 ? 'none' : parts.join(', ');
}
