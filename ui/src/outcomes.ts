import type { OutcomesView, RefusalClass } from './admin-api-types.js';

/** One place a request can end in, with its colour's class (styles.css) and how the dashboard names it. */
export interface OutcomePart {
  /** `served_first_try`, `refused.budget`, `failed_upstream.timeout`, `cancelled`. */
  key: string;
  group: 'served' | 'refused' | 'failed' | 'cancelled';
  label: string;
  count: number;
  colour: string;
}

const REFUSAL_LABELS = {
  auth: 'refused: auth (key or model not allowed)',
  rate_limit: "refused: a key's rate limit",
  budget: "refused: a key's budget",
  bad_request: 'refused: bad request',
  other: 'refused: other',
} as const satisfies Record<RefusalClass, string>;

/**
 * Every request of `outcomes` in exactly one part, in the order the overview shows them: served
 * (first try, after failover), refused by the gateway (each class its own colour), failed
 * upstream (by the last attempt's kind, coloured as the timeline colours kinds), cancelled.
 */
export function outcomeParts(outcomes: OutcomesView): OutcomePart[] {
  const parts: OutcomePart[] = [
    { key: 'served_first_try', group: 'served', label: 'served first try', count: outcomes.served_first_try, colour: 'outcome-served' },
    { key: 'served_after_failover', group: 'served', label: 'served after failover', count: outcomes.served_after_failover, colour: 'outcome-failover' },
  ];
  for (const [refusal, label] of Object.entries(REFUSAL_LABELS) as [RefusalClass, string][]) {
    parts.push({ key: `refused.${refusal}`, group: 'refused', label, count: outcomes.refused[refusal], colour: `outcome-refused-${refusal}` });
  }
  for (const [kind, count] of Object.entries(outcomes.failed_upstream)) {
    parts.push({ key: `failed_upstream.${kind}`, group: 'failed', label: `failed upstream: ${kind}`, count: count ?? 0, colour: `kind-${kind}` });
  }
  parts.push({ key: 'cancelled', group: 'cancelled', label: 'cancelled by the caller', count: outcomes.cancelled, colour: 'kind-cancelled' });
  return parts;
}

export function refusedCount(outcomes: OutcomesView): number {
  return Object.values(outcomes.refused).reduce((sum, count) => sum + count, 0);
}

export function failedUpstreamCount(outcomes: OutcomesView): number {
  return Object.values(outcomes.failed_upstream).reduce((sum: number, count) => sum + (count ?? 0), 0);
}
