import { html, nothing, render, type TemplateResult } from 'lit-html';
import type { AdminStatsResponse as Stats, StatsBucketView as StatsBucket, TeamView } from '../admin-api-types.js';
import { formatMs, formatShare, formatTokens, formatUsd, timeCell } from '../format-time.js';
import { failedUpstreamCount, outcomeParts, refusedCount } from '../outcomes.js';
import { ORIGIN_WORDS } from '../origin-words.js';
import type { Page } from '../page.js';
import { teamChoice, teamName, teamsToFilterBy } from '../team-filter.js';
import { TimeChart } from '../time-chart.js';
import { breakdownTables, failingView, tokensText } from './overview-tables.js';

const RANGES = {
  hour: { label: 'Last hour', spanMs: 3_600_000, bucketS: 60 },
  day: { label: 'Last day', spanMs: 86_400_000, bucketS: 900 },
} as const;
type RangeName = keyof typeof RANGES;
const REFRESH_MS = 15_000;
/** The Overview is the callers': every count says so, spend over time excepted (the ledger's, every origin's). */
const WHOSE = ORIGIN_WORDS.caller;
/**
 * Narrowed to teams (one chosen, or a team role's own), the counts, outcomes, tokens, spend and
 * routes are those teams'; what the gateway keeps by deployment alone stays every team's.
 */
const SHARED_FIGURES = "Latency and first-token percentiles, failing deployments and By provider count every team's requests: the gateway keeps them by deployment, which the teams share.";

/**
 * Overview: the callers' requests of the last hour or day from `/admin/stats` — how they ended
 * (served, refused by the gateway, failed upstream), charts over time, each route and provider,
 * and the deployments failing most — of every team's requests, or of one team's (`?team=`).
 */
export const overviewPage: Page = (root, { api, can, query, navigate }) => {
  const rangeName: RangeName = query.get('range') === 'day' ? 'day' : 'hour';
  const range = RANGES[rangeName];
  const team = query.get('team') || null;
  let teams: TeamView[] = [];
  let stats: Stats | undefined;
  let error: string | undefined;
  const overviewUrl = (next: { range: RangeName; team: string | null }) => {
    const parameters = new URLSearchParams();
    if (next.range !== 'hour') parameters.set('range', next.range);
    if (next.team) parameters.set('team', next.team);
    const text = parameters.toString();
    return `/ui/${text ? `?${text}` : ''}`;
  };
  const charts: { chart: TimeChart; values: (bucket: StatsBucket, perMinute: number) => (number | null)[] }[] = [];

  const draw = () =>
    render(
      html`<h1 tabindex="-1">Overview</h1>
        <div class="toolbar" role="group" aria-label="Time range">
          ${Object.entries(RANGES).map(
            ([name, option]) =>
              html`<button type="button" aria-pressed=${name === rangeName ? 'true' : 'false'} @click=${() => navigate(overviewUrl({ range: name as RangeName, team }))}>${option.label}</button>`,
          )}
          ${teamChoice(teams, team, (chosen) => navigate(overviewUrl({ range: rangeName, team: chosen || null })))}
          <span class="muted">callers' requests${team ? ` of team ${teamName(teams, team)}` : ''}${stats ? html`; updated ${timeCell(new Date().toISOString())}` : nothing}</span>
        </div>
        ${stats?.teams ? html`<p class="muted scope-note" role="note">${SHARED_FIGURES}</p>` : nothing}
        ${error ? html`<p class="error" role="alert">${error}</p>` : nothing}
        ${stats ? html`${totals(stats)}<div class="incident">${outcomesView(stats)}${failingView(stats.failing_deployments)}</div>` : html`<p class="muted">Loading…</p>`}
        <div class="charts">
          <div class="chart" id="chart-requests"></div>
          <div class="chart" id="chart-shares"></div>
          <div class="chart" id="chart-attempts"></div>
          <div class="chart" id="chart-latency"></div>
          <div class="chart" id="chart-tokens"></div>
          <div class="chart" id="chart-spend"></div>
        </div>
        ${stats ? breakdownTables(stats) : nothing}`,
      root,
    );

  draw();
  const chart = (
    id: string,
    title: string,
    unit: (value: number) => string,
    series: { label: string; colour: string }[],
    values: (bucket: StatsBucket, perMinute: number) => (number | null)[],
    yRange?: [number, number],
  ) => charts.push({ chart: new TimeChart(root.querySelector<HTMLElement>(`#${id}`)!, { title, unit, series, ...(yRange ? { range: yRange } : {}) }), values });
  chart(
    'chart-requests',
    `${capitalized(WHOSE)} requests per minute`,
    (value) => value.toFixed(1),
    [
      { label: 'served', colour: '#16a34a' },
      { label: 'refused by the gateway', colour: '#7c3aed' },
      { label: 'failed upstream', colour: '#dc2626' },
    ],
    (bucket, perMinute) => [
      (bucket.outcomes.served_first_try + bucket.outcomes.served_after_failover) / perMinute,
      refusedCount(bucket.outcomes) / perMinute,
      failedUpstreamCount(bucket.outcomes) / perMinute,
    ],
  );
  chart(
    'chart-shares',
    `${capitalized(WHOSE)} success and fallback share`,
    (value) => `${(value * 100).toFixed(0)} %`,
    [
      { label: 'success', colour: '#15803d' },
      { label: 'fallback', colour: '#c2410c' },
    ],
    (bucket) => [bucket.ok_share, bucket.fallback_share],
    [0, 1],
  );
  chart('chart-attempts', `${capitalized(WHOSE)} attempts per request that reached a provider`, (value) => value.toFixed(2), [{ label: 'attempts', colour: '#7c3aed' }], (bucket) => [bucket.attempts_per_reached_request]);
  chart(
    'chart-latency',
    `${capitalized(WHOSE)} latency`,
    (value) => formatMs(value),
    [
      { label: 'added p50', colour: '#0891b2' },
      { label: 'added p99', colour: '#be123c' },
      { label: 'first token p50', colour: '#ca8a04' },
    ],
    (bucket) => [bucket.added_latency_ms.p50, bucket.added_latency_ms.p99, bucket.first_token_ms.p50],
  );
  chart(
    'chart-tokens',
    `${capitalized(WHOSE)} tokens per minute`,
    (value) => formatTokens(value),
    [
      { label: 'input', colour: '#2563eb' },
      { label: 'output', colour: '#9333ea' },
      { label: 'cache read', colour: '#0d9488' },
    ],
    (bucket, perMinute) => [bucket.tokens.input / perMinute, bucket.tokens.output / perMinute, bucket.tokens.cache_read / perMinute],
  );
  // The gateway's own requests use no key, so a team's spend is its callers' alone.
  chart('chart-spend', team ? "Spend of the team's requests" : 'Spend (every origin)', (value) => formatUsd(value), [{ label: 'USD', colour: '#334155' }], (bucket) => [bucket.spend_usd]);

  async function load(): Promise<void> {
    try {
      const since = new Date(Date.now() - range.spanMs).toISOString();
      stats = await api.get<Stats>(`/admin/stats?since=${encodeURIComponent(since)}&bucket_s=${range.bucketS}&origin=caller${team ? `&team=${encodeURIComponent(team)}` : ''}`);
      error = undefined;
      const perMinute = stats.bucket_s / 60;
      const times = stats.data.map((bucket) => Date.parse(bucket.start) / 1000);
      for (const { chart: plot, values } of charts) {
        const rows = stats.data.map((bucket) => values(bucket, perMinute));
        plot.update(times, rows[0]?.map((_, index) => rows.map((row) => row[index] ?? null)) ?? []);
      }
    } catch (failure) {
      error = `The figures could not be read: ${(failure as Error).message}`;
    }
    draw();
  }
  void load();
  void teamsToFilterBy(api, can).then((listed) => {
    teams = listed;
    draw();
  });
  const timer = setInterval(() => void load(), REFRESH_MS);
  return () => {
    clearInterval(timer);
    for (const { chart: plot } of charts) plot.destroy();
  };
};

/** The range's totals; the fallback share weighted by requests, latencies of the latest bucket with traffic. */
function totals(stats: Stats): TemplateResult {
  const { totals: all } = stats;
  let fallback = 0;
  let weight = 0;
  for (const bucket of stats.data) {
    if (bucket.fallback_share === null) continue;
    fallback += bucket.fallback_share * bucket.requests;
    weight += bucket.requests;
  }
  const served = all.outcomes.served_first_try + all.outcomes.served_after_failover;
  const latest = [...stats.data].reverse().find((bucket) => bucket.added_latency_ms.p50 !== null || bucket.first_token_ms.p50 !== null);
  const share = (count: number) => (all.requests === 0 ? '' : ` (${formatShare(count / all.requests)})`);
  const figures: [string, string][] = [
    [`${capitalized(WHOSE)} requests`, String(all.requests)],
    ['Served', `${served}${share(served)}`],
    ['Refused by the gateway', `${refusedCount(all.outcomes)}${share(refusedCount(all.outcomes))}`],
    ['Failed upstream', `${failedUpstreamCount(all.outcomes)}${share(failedUpstreamCount(all.outcomes))}`],
    ['Fallback', formatShare(weight === 0 ? null : fallback / weight)],
    ['Attempts per reached request', all.attempts_per_reached_request?.toFixed(2) ?? '—'],
    ['Added latency p50 / p99', latest ? `${formatMs(latest.added_latency_ms.p50)} / ${formatMs(latest.added_latency_ms.p99)}` : '—'],
    ['First token p50', formatMs(latest?.first_token_ms.p50)],
    ['Tokens in / out', tokensText(all.tokens)],
    [`${capitalized(WHOSE)} spend`, formatUsd(all.spend_usd)],
  ];
  return html`<dl class="figures">
    ${figures.map(([name, value]) => html`<div class="figure"><dt>${name}</dt><dd>${value}</dd></div>`)}
  </dl>`;
}

/** How every request of the range ended: one bar split by outcome, and the counts behind it. */
function outcomesView(stats: Stats): TemplateResult {
  const total = stats.totals.requests;
  const parts = outcomeParts(stats.totals.outcomes).filter((part) => part.count > 0 || part.group === 'served');
  return html`<section class="outcomes" aria-labelledby="outcomes-heading">
    <h2 id="outcomes-heading">How ${WHOSE} requests ended</h2>
    ${total === 0
      ? html`<p class="muted">No request in this range.</p>`
      : html`<div class="outcome-bar" aria-hidden="true">
          ${parts.filter((part) => part.count > 0).map((part) => html`<span class=${part.colour} style="width: ${((part.count / total) * 100).toFixed(2)}%" title=${`${part.label}: ${part.count}`}></span>`)}
        </div>`}
    <div class="table-wrap fits">
      <table class="outcome-table">
        <thead>
          <tr>
            <th scope="col">Outcome</th>
            <th scope="col" class="number">Requests</th>
            <th scope="col" class="number">Share</th>
          </tr>
        </thead>
        <tbody>
          ${parts.map(
            (part) => html`<tr data-outcome=${part.key} data-group=${part.group}>
              <th scope="row"><span class="swatch ${part.colour}"></span>${part.label}</th>
              <td class="number">${part.count}</td>
              <td class="number">${formatShare(total === 0 ? null : part.count / total)}</td>
            </tr>`,
          )}
          <tr data-outcome="all">
            <th scope="row"><strong>all ${WHOSE} requests</strong></th>
            <td class="number"><strong>${total}</strong></td>
            <td class="number"></td>
          </tr>
        </tbody>
      </table>
    </div>
  </section>`;
}

function capitalized(words: string): string {
  return words.charAt(0).toUpperCase() + words.slice(1);
}
