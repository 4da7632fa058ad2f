import { html, nothing, type TemplateResult } from 'lit-html';
import type { KeySpendView, TeamSpendView } from './admin-api-types.js';
import { formatUsd } from './format-time.js';

/** A key's or a team's spend in its current period: against its budget as a bar, or alone when it has none. */
export function spendMeter(spend: Pick<KeySpendView | TeamSpendView, 'usd' | 'reserved_usd' | 'budget_usd' | 'period'>): TemplateResult {
  if (spend.budget_usd === null) return html`${formatUsd(spend.usd)} <span class="muted">(no budget)</span>`;
  const share = spend.budget_usd === 0 ? 1 : Math.min(1, spend.usd / spend.budget_usd);
  return html`<div class="budget">
    <div class="budget-bar" role="meter" aria-valuemin="0" aria-valuemax=${spend.budget_usd} aria-valuenow=${spend.usd} aria-valuetext=${`${formatUsd(spend.usd)} of ${formatUsd(spend.budget_usd)}`}>
      <span class=${share >= 0.9 ? 'over' : ''} style="width: ${(share * 100).toFixed(1)}%"></span>
    </div>
    ${formatUsd(spend.usd)} of ${formatUsd(spend.budget_usd)} / ${spend.period}${spend.reserved_usd > 0 ? html` <span class="muted">(+${formatUsd(spend.reserved_usd)} reserved)</span>` : nothing}
  </div>`;
}
