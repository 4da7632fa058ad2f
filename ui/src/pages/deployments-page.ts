import { html, nothing, render, type TemplateResult } from 'lit-html';
import { formatMs, shortTimeCell, timeCell } from '../format-time.js';
import type { AdminHealthResponse, AdminStatsResponse, DeploymentHealthView, DeploymentStatsView, OriginChoice } from '../admin-api-types.js';
import { ORIGIN_WORDS, originOf } from '../origin-words.js';
import type { Page } from '../page.js';
import { sparkline } from '../sparkline.js';
import { DEPLOYMENT_STATES, type DeploymentState } from '../../../src/health/deployment-state.js';
import { relativeToTheSecond } from '../../../src/records/relative-to-the-second.js';

/** What each state of `/admin/health` means (docs/health.md), most serious first. */
const STATE_MEANINGS = {
  structural: 'broken in a way time does not fix (credentials, quota, a missing model): back after a successful probe',
  ejected: 'its circuit breaker is open after failures: back after a recovery probe succeeds, or half-open when the time is up',
  half_open: 'the ejection is over: the next request (or probe) is its trial',
  cooling: 'a 429 told it to wait: passed over until then',
  healthy: 'taking requests',
} as const satisfies Record<DeploymentState, string>;

const REFRESH_MS = 2_000;
/** The last hour's attempts change by the minute: read less often than the states. */
const HISTORY_REFRESH_MS = 15_000;
const HOUR_MS = 3_600_000;
/** How long a row that changed state stays highlighted. */
const HIGHLIGHT_MS = 10_000;

/**
 * Deployments: `/admin/health`, polled, failing ones first; a deployment whose state changed is
 * highlighted and announced. The last hour's attempts are the callers' (as the Overview counts
 * them) unless `origin=` asks for another origin's, or `all`.
 */
export const deploymentsPage: Page = (root, { api, query, navigate }) => {
  const origin = originOf(query);
  let deployments: DeploymentHealthView[] | undefined;
  let error: string | undefined;
  let loadedAt: string | undefined;
  const changedAtMs = new Map<string, { fromState: string; atMs: number }>();
  let announcement = '';
  let history: Map<string, DeploymentStatsView> | undefined;

  const draw = () => {
    const nowMs = Date.now();
    render(
      html`<h1 tabindex="-1">Deployments</h1>
        <p class="muted">Refreshes every ${REFRESH_MS / 1000} s${loadedAt ? html`; last read ${timeCell(loadedAt)}` : nothing}. Failing deployments first.</p>
        ${originButtons(origin, navigate)}
        <p class="visually-hidden" aria-live="polite">${announcement}</p>
        ${error ? html`<p class="error" role="alert">${error}</p>` : nothing}
        ${deployments === undefined
          ? html`<p class="muted">Loading…</p>`
          : html`<div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Deployment</th>
                    <th scope="col">State</th>
                    <th scope="col">Since</th>
                    <th scope="col">Last hour, <span class="heading-note">${ORIGIN_WORDS[origin]} attempts</span></th>
                    <th scope="col">Why</th>
                    <th scope="col">Quota headroom</th>
                    <th scope="col">First-token timeout</th>
                  </tr>
                </thead>
                <tbody>
                  ${failingFirst(deployments, history).map((deployment) => {
                    const change = changedAtMs.get(deployment.deployment);
                    const highlighted = change !== undefined && nowMs - change.atMs < HIGHLIGHT_MS;
                    return html`<tr class=${highlighted ? 'changed' : ''} data-deployment=${deployment.deployment}>
                      <th scope="row" class="deployment-name">${deployment.deployment}</th>
                      <td>
                        <span class="state state-${deployment.state}">${deployment.state}</span>${highlighted ? html` <span class="muted">(was ${change.fromState})</span>` : nothing}
                        ${untilOf(deployment)}
                      </td>
                      <td class="nowrap">${shortTimeCell(deployment.since)}</td>
                      <td class="history">${historyOf(history, deployment.deployment, ORIGIN_WORDS[origin])}</td>
                      <td>${deployment.reason}${deployment.last_error ? html`<div class="muted clamp" title=${deployment.last_error.message}>last error: ${deployment.last_error.kind}: ${deployment.last_error.message}</div>` : nothing}</td>
                      <td>${quotaOf(deployment.quota)}</td>
                      <td>${firstTokenOf(deployment.first_token)}</td>
                    </tr>`;
                  })}
                </tbody>
              </table>
            </div>
            <dl class="states">
              ${DEPLOYMENT_STATES.map((state) => html`<div><dt><span class="state state-${state}">${state}</span></dt><dd>${STATE_MEANINGS[state]}</dd></div>`)}
            </dl>`}`,
      root,
    );
  };

  async function load(): Promise<void> {
    try {
      const { data } = await api.get<AdminHealthResponse>('/admin/health');
      const changes: string[] = [];
      for (const deployment of data) {
        const before = deployments?.find((known) => known.deployment === deployment.deployment);
        if (before && before.state !== deployment.state) {
          changedAtMs.set(deployment.deployment, { fromState: before.state, atMs: Date.now() });
          changes.push(`${deployment.deployment} is now ${deployment.state} (was ${before.state})`);
        }
      }
      if (changes.length > 0) announcement = changes.join('; ');
      deployments = data;
      loadedAt = new Date().toISOString();
      error = undefined;
    } catch (failure) {
      error = `The deployments could not be read: ${(failure as Error).message}`;
    }
    draw();
  }
  /** The chosen origin's attempts over the last hour by the minute, read as the Overview reads them. */
  async function loadHistory(): Promise<void> {
    try {
      const since = new Date(Date.now() - HOUR_MS).toISOString();
      const stats = await api.get<AdminStatsResponse>(`/admin/stats?since=${encodeURIComponent(since)}&bucket_s=60&origin=${origin}`);
      history = new Map(stats.by_deployment.map((row) => [row.deployment, row]));
    } catch {
      // The states matter more; the sparklines stay as they were until the next read.
    }
    draw();
  }
  draw();
  void load();
  void loadHistory();
  const timer = setInterval(() => void load(), REFRESH_MS);
  const historyTimer = setInterval(() => void loadHistory(), HISTORY_REFRESH_MS);
  return () => {
    clearInterval(timer);
    clearInterval(historyTimer);
  };
};

/** Whose attempts the last hour counts: the callers' (as the Overview does) or another origin's, each its own URL. */
function originButtons(origin: OriginChoice, navigate: (url: string) => void): TemplateResult {
  return html`<div class="toolbar" role="group" aria-label="Whose attempts the last hour counts">
    ${Object.entries(ORIGIN_WORDS).map(
      ([name, words]) =>
        html`<button type="button" aria-pressed=${name === origin ? 'true' : 'false'} @click=${() => navigate(name === 'caller' ? '/ui/deployments' : `/ui/deployments?origin=${name}`)}>${words} attempts</button>`,
    )}
  </div>`;
}

/**
 * Out deployments first, the most serious state first (structural, ejected, half-open, cooling),
 * then by failed attempts in the last hour; otherwise in the configured order.
 */
function failingFirst(deployments: DeploymentHealthView[], history: Map<string, DeploymentStatsView> | undefined): DeploymentHealthView[] {
  const failures = (deployment: DeploymentHealthView) => history?.get(deployment.deployment)?.failures ?? 0;
  return [...deployments].sort((a, b) => DEPLOYMENT_STATES.indexOf(a.state) - DEPLOYMENT_STATES.indexOf(b.state) || failures(b) - failures(a));
}

/** The deployment's last hour by the minute: attempts and failures on one scale, first-token p95 on its own. */
function historyOf(history: Map<string, DeploymentStatsView> | undefined, deployment: string, whose: string) {
  if (history === undefined) return '…';
  const row = history.get(deployment);
  if (!row || row.attempts === 0) return html`<span class="muted">no ${whose} attempts</span>`;
  const p95 = row.series.map((point) => point.first_token_p95_ms);
  return html`<div class="spark-row">
      ${sparkline(
        [
          { values: row.series.map((point) => point.attempts), colour: '#2563eb' },
          { values: row.series.map((point) => point.failures), colour: '#dc2626' },
        ],
        `${row.attempts} ${whose} attempts, ${row.failures} failed, in the last hour`,
      )}
      <span class="attempt-counts">${row.attempts} / <span class=${row.failures > 0 ? 'error' : ''}>${row.failures} failed</span></span>
    </div>
    ${p95.some((value) => value !== null)
      ? html`<div class="spark-row">
          ${sparkline([{ values: p95, colour: '#ca8a04' }], `first token p95 by the minute, up to ${formatMs(Math.max(...p95.filter((value) => value !== null)))}`)}
          <span class="muted">first token p95 ${formatMs(row.first_token_ms.p95)}</span>
        </div>`
      : nothing}`;
}

/** What ends the state: its end, the trial it waits for (and when a request last reached it), or its next probe; nothing for a healthy one. */
function untilOf(deployment: DeploymentHealthView) {
  const at = (iso: string) => shortTimeCell(iso, '—', true);
  let until: TemplateResult | string | undefined;
  if (deployment.state === 'ejected' && deployment.ejected_until) until = html`ejected until ${at(deployment.ejected_until)}`;
  else if (deployment.state === 'half_open') until = deployment.last_tried_at ? html`trial due; last tried ${at(deployment.last_tried_at)}` : 'trial due; not tried since this gateway started';
  else if (deployment.state === 'cooling' && deployment.cooling_until) until = html`cooling until ${at(deployment.cooling_until)}`;
  else if (deployment.next_probe_at) until = html`next probe ${at(deployment.next_probe_at)}`;
  return until === undefined ? nothing : html`<div class="until">${until}</div>`;
}

/** Each reported window (requests, tokens…): what remains of its limit, as a bar, and when it is full again. */
function quotaOf(quota: DeploymentHealthView['quota']) {
  const windows = Object.entries(quota ?? {}).filter(([, window]) => window.remaining !== undefined);
  if (windows.length === 0) return '—';
  return html`${windows.map(([name, window]) => {
    const share = window.limit ? Math.min(1, window.remaining! / window.limit) : undefined;
    return html`<div class="quota">
      ${name}: ${window.remaining}${window.limit === undefined ? '' : ` of ${window.limit}`}
      ${share === undefined
        ? nothing
        : html`<div class="budget-bar" role="meter" aria-label=${`${name} headroom`} aria-valuemin="0" aria-valuemax="100" aria-valuenow=${Math.round(share * 100)}>
            <span class=${share <= 0.1 ? 'over' : ''} style="width: ${(share * 100).toFixed(1)}%"></span>
          </div>`}
      ${window.resetAtMs === undefined ? nothing : html`<span class="muted">full again ${relativeToTheSecond(window.resetAtMs)}</span>`}
    </div>`;
  })}`;
}

/** The first-token timeout in force on each route naming the deployment, and what it was learned from. */
function firstTokenOf(firstToken: DeploymentHealthView['first_token']) {
  const routes = Object.entries(firstToken.timeout_ms);
  if (routes.length === 0) return '—';
  // Where each timeout comes from: the deployment's own times, borrowed ones, the cold default or the maximum.
  return html`${routes.map(([route, ms]) => html`<div>${route}: ${formatMs(ms)} <span class="muted">(${firstToken.source[route]?.replace('_', ' ') ?? '—'})</span></div>`)}
    <div class="muted">${firstToken.samples} samples${firstToken.p99_ms === null ? '' : `, p99 ${formatMs(firstToken.p99_ms)}`}</div>`;
}
