import { html, type TemplateResult } from 'lit-html';
import type { AdminStatsResponse as Stats, BreakdownFigures, FailingDeploymentView, TokensView } from '../admin-api-types.js';
import { formatMs, formatShare, formatTokens, formatUsd, shortTimeCell } from '../format-time.js';
import { ORIGIN_WORDS } from '../origin-words.js';

/** The Overview's tables of the range: the deployments failing most, and the requests by route and by provider. */
const WHOSE = ORIGIN_WORDS.caller;

export function tokensText(tokens: TokensView): string {
  return `${formatTokens(tokens.input)} / ${formatTokens(tokens.output)}`;
}

export function failingView(failing: FailingDeploymentView[]): TemplateResult {
  return html`<section aria-labelledby="failing-heading">
    <h2 id="failing-heading">Failing deployments, ${WHOSE} attempts</h2>
    ${failing.length === 0
      ? html`<p>No attempt failed in this range.</p>`
      : html`<div class="table-wrap">
          <table class="failing">
            <thead>
              <tr>
                <th scope="col">Deployment</th>
                <th scope="col" class="number">Failed / attempts</th>
                <th scope="col">Kinds</th>
                <th scope="col">Failing since / last failure</th>
              </tr>
            </thead>
            <tbody>
              ${failing.map(
                (row) => html`<tr data-deployment=${row.deployment}>
                  <th scope="row" class="mono deployment-name">${row.deployment}</th>
                  <td class="number">${row.failures} / ${row.attempts}</td>
                  <td>${Object.entries(row.failure_kinds).map(([kind, count]) => html`<span class="kind-chip"><span class="swatch kind-${kind}"></span>${kind} ${count}</span> `)}</td>
                  <td><div class="since">${shortTimeCell(row.since, '—', true)}</div><div class="muted">last ${shortTimeCell(row.last_failure)}</div></td>
                </tr>`,
              )}
            </tbody>
          </table>
        </div>`}
  </section>`;
}

/** By route (requests refused before any route in one row, "no route") and by the provider that served them. */
export function breakdownTables(stats: Stats): TemplateResult {
  const noRoute = html`<span class="muted" title="refused before a route: bad JSON, an unknown model, too large">no route</span>`;
  return html`${breakdownTable({ title: 'By route', column: 'Route' }, stats.by_route, (row) => row.route ?? noRoute)}
  ${breakdownTable({ title: 'By provider', column: 'Provider' }, stats.by_provider, (row) => html`${row.connection} <span class="muted">(${row.provider})</span>`)}`;
}

function breakdownTable<Row extends BreakdownFigures>(
  { title, column }: { title: string; column: string },
  rows: Row[],
  name: (row: Row) => TemplateResult | string,
): TemplateResult {
  const id = `${title.toLowerCase().replaceAll(' ', '-')}-heading`;
  return html`<section aria-labelledby=${id}>
    <h2 id=${id}>${title}, ${WHOSE} requests</h2>
    ${rows.length === 0
      ? html`<p class="muted">No request in this range.</p>`
      : html`<div class="table-wrap">
          <table class="breakdown">
            <thead>
              <tr>
                <th scope="col">${column}</th>
                <th scope="col" class="number">Requests</th>
                <th scope="col" class="number">Success</th>
                <th scope="col" class="number">Fallback</th>
                <th scope="col" class="number">First token p50 / p99</th>
                <th scope="col" class="number">Tokens in / out</th>
                <th scope="col" class="number">Spend</th>
              </tr>
            </thead>
            <tbody>
              ${rows.map(
                (row) => html`<tr>
                  <th scope="row">${name(row)}</th>
                  <td class="number">${row.requests}</td>
                  <td class="number">${formatShare(row.ok_share)}</td>
                  <td class="number">${formatShare(row.fallback_share)}</td>
                  <td class="number">${formatMs(row.first_token_ms.p50)} / ${formatMs(row.first_token_ms.p99)}</td>
                  <td class="number">${tokensText(row.tokens)}</td>
                  <td class="number">${formatUsd(row.spend_usd)}</td>
                </tr>`,
              )}
            </tbody>
          </table>
        </div>`}
  </section>`;
}
