import { html, nothing, render } from 'lit-html';
import { formatMs, formatShare, formatUsd, timeCell } from '../format-time.js';
import type { AdminStatsResponse as Stats, StatsBucketView as StatsBucket } from '../admin-api-types.js';
import type { Page } from '../page.js';
import { TimeChart } from '../time-chart.js';

const RANGES = {
  hour: { label: 'Last hour', spanMs: 3_600_000, bucketS: 60 },
  day: { label: 'Last day', spanMs: 86_400_000, bucketS: 900 },
} as const;
type RangeName = keyof typeof RANGES;
const REFRESH_MS = 15_000;

/** Overview: the figures of `/admin/stats` over the last hour or day, as totals and charts. */
export const overviewPage: Page = (root, { api, query, navigate }) => {
  const rangeName: RangeName = query.get('range') === 'day' ? 'day' : 'hour';
  const range = RANGES[rangeName];
  let stats: Stats | undefined;
  let error: string | undefined;
  const charts: { chart: TimeChart; values: (bucket: StatsBucket, perMinute: number) => (number | null)[] }[] = [];

  const draw = () =>
    render(
      html`<h1 tabindex="-1">Overview</h1>
        <div class="toolbar" role="group" aria-label="Time range">
          ${Object.entries(RANGES).map(
            ([name, option]) =>
              html`<button type="button" aria-pressed=${name === rangeName ? 'true' : 'false'} @click=${() => navigate(name === 'hour' ? '/ui/' : `/ui/?range=${name}`)}>${option.label}</button>`,
          )}
          ${stats ? html`<span class="muted">updated ${timeCell(new Date().toISOString())}</span>` : nothing}
        </div>
        ${error ? html`<p class="error" role="alert">${error}</p>` : nothing}
        ${stats ? totals(stats) : html`<p class="muted">Loading…</p>`}
        <div class="charts">
          <div class="chart" id="chart-requests"></div>
          <div class="chart" id="chart-shares"></div>
          <div class="chart" id="chart-attempts"></div>
          <div class="chart" id="chart-latency"></div>
          <div class="chart" id="chart-spend"></div>
        </div>`,
      root,
    );

  draw();
  const chart = (id: string, title: string, unit: (value: number) => string, series: { label: string; colour: string }[], values: (bucket: StatsBucket, perMinute: number) => (number | null)[]) =>
    charts.push({ chart: new TimeChart(root.querySelector<HTMLElement>(`#${id}`)!, { title, unit, series }), values });
  chart('chart-requests', 'Requests per minute', (value) => value.toFixed(1), [{ label: 'requests/min', colour: '#2563eb' }], (bucket, perMinute) => [bucket.requests / perMinute]);
  chart(
    'chart-shares',
    'Success and fallback share',
    (value) => `${(value * 100).toFixed(0)} %`,
    [
      { label: 'success', colour: '#15803d' },
      { label: 'fallback', colour: '#c2410c' },
    ],
    (bucket) => [bucket.ok_share, bucket.fallback_share],
  );
  chart('chart-attempts', 'Attempts per request', (value) => value.toFixed(2), [{ label: 'attempts', colour: '#7c3aed' }], (bucket) => [bucket.attempts_per_request]);
  chart(
    'chart-latency',
    'Latency',
    (value) => formatMs(value),
    [
      { label: 'added p50', colour: '#0891b2' },
      { label: 'added p99', colour: '#be123c' },
      { label: 'first token p50', colour: '#ca8a04' },
    ],
    (bucket) => [bucket.added_latency_ms.p50, bucket.added_latency_ms.p99, bucket.first_token_ms.p50],
  );
  chart('chart-spend', 'Spend', (value) => formatUsd(value), [{ label: 'USD', colour: '#334155' }], (bucket) => [bucket.spend_usd]);

  async function load(): Promise<void> {
    try {
      const since = new Date(Date.now() - range.spanMs).toISOString();
      stats = await api.get<Stats>(`/admin/stats?since=${encodeURIComponent(since)}&bucket_s=${range.bucketS}`);
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
  const timer = setInterval(() => void load(), REFRESH_MS);
  return () => {
    clearInterval(timer);
    for (const { chart: plot } of charts) plot.destroy();
  };
};

/** The range's totals: counts and money summed, shares weighted by requests, latencies of the latest busy bucket. */
function totals(stats: Stats) {
  const requests = stats.data.reduce((sum, bucket) => sum + bucket.requests, 0);
  const weighted = (pick: (bucket: StatsBucket) => number | null) => {
    let total = 0;
    let weight = 0;
    for (const bucket of stats.data) {
      const value = pick(bucket);
      if (value === null) continue;
      total += value * bucket.requests;
      weight += bucket.requests;
    }
    return weight === 0 ? null : total / weight;
  };
  const latest = [...stats.data].reverse().find((bucket) => bucket.added_latency_ms.p50 !== null || bucket.first_token_ms.p50 !== null);
  const figures: [string, string][] = [
    ['Requests', String(requests)],
    ['Success', formatShare(weighted((bucket) => bucket.ok_share))],
    ['Fallback', formatShare(weighted((bucket) => bucket.fallback_share))],
    ['Attempts per request', weighted((bucket) => bucket.attempts_per_request)?.toFixed(2) ?? '—'],
    ['Added latency p50 / p99', latest ? `${formatMs(latest.added_latency_ms.p50)} / ${formatMs(latest.added_latency_ms.p99)}` : '—'],
    ['First token p50', formatMs(latest?.first_token_ms.p50)],
    ['Spend', formatUsd(stats.data.reduce((sum, bucket) => sum + bucket.spend_usd, 0))],
  ];
  return html`<dl class="figures">
    ${figures.map(([name, value]) => html`<div class="figure"><dt>${name}</dt><dd>${value}</dd></div>`)}
  </dl>`;
}
