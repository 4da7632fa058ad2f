import { html, nothing, render } from 'lit-html';
import { formatMs, timeCell } from '../format-time.js';
import type { AdminHealthResponse, DeploymentHealthView } from '../admin-api-types.js';
import type { Page } from '../page.js';

const REFRESH_MS = 2_000;
/** How long a row that changed state stays highlighted. */
const HIGHLIGHT_MS = 10_000;

/** Deployments: `/admin/health`, polled; a deployment whose state changed is highlighted and announced. */
export const deploymentsPage: Page = (root, { api }) => {
  let deployments: DeploymentHealthView[] | undefined;
  let error: string | undefined;
  let loadedAt: string | undefined;
  const changedAtMs = new Map<string, { fromState: string; atMs: number }>();
  let announcement = '';

  const draw = () => {
    const nowMs = Date.now();
    render(
      html`<h1 tabindex="-1">Deployments</h1>
        <p class="muted">Refreshes every ${REFRESH_MS / 1000} s${loadedAt ? html`; last read ${timeCell(loadedAt)}` : nothing}.</p>
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
                    <th scope="col">Why</th>
                    <th scope="col">Until / next probe</th>
                    <th scope="col">Quota headroom</th>
                    <th scope="col">First-token timeout</th>
                  </tr>
                </thead>
                <tbody>
                  ${deployments.map((deployment) => {
                    const change = changedAtMs.get(deployment.deployment);
                    const highlighted = change !== undefined && nowMs - change.atMs < HIGHLIGHT_MS;
                    return html`<tr class=${highlighted ? 'changed' : ''} data-deployment=${deployment.deployment}>
                      <th scope="row">${deployment.deployment}</th>
                      <td><span class="state state-${deployment.state}">${deployment.state}</span>${highlighted ? html` <span class="muted">(was ${change.fromState})</span>` : nothing}</td>
                      <td>${timeCell(deployment.since)}</td>
                      <td>${deployment.reason}${deployment.last_error ? html`<div class="muted">last error: ${deployment.last_error.kind}: ${deployment.last_error.message}</div>` : nothing}</td>
                      <td>${untilOf(deployment)}</td>
                      <td>${quotaOf(deployment.quota)}</td>
                      <td>${firstTokenOf(deployment.first_token)}</td>
                    </tr>`;
                  })}
                </tbody>
              </table>
            </div>`}`,
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
  draw();
  void load();
  const timer = setInterval(() => void load(), REFRESH_MS);
  return () => clearInterval(timer);
};

/** What ends the state: its end, the trial it waits for (and when a request last reached it), or its next probe. */
function untilOf(deployment: DeploymentHealthView) {
  if (deployment.state === 'ejected' && deployment.ejected_until) return html`ejected until ${timeCell(deployment.ejected_until)}`;
  if (deployment.state === 'half_open') {
    return deployment.last_tried_at ? html`trial due; last tried ${timeCell(deployment.last_tried_at)}` : 'trial due; not tried since this gateway started';
  }
  if (deployment.state === 'cooling' && deployment.cooling_until) return html`cooling until ${timeCell(deployment.cooling_until)}`;
  if (deployment.next_probe_at) return html`next probe ${timeCell(deployment.next_probe_at)}`;
  return '—';
}

/** The tightest reported window: remaining of limit, per window name. */
function quotaOf(quota: DeploymentHealthView['quota']) {
  const windows = Object.entries(quota ?? {}).filter(([, window]) => window.remaining !== undefined);
  if (windows.length === 0) return '—';
  return html`${windows.map(([name, window]) => {
    const share = window.limit ? window.remaining! / window.limit : undefined;
    return html`<div>${name}: ${window.remaining}${window.limit === undefined ? '' : ` of ${window.limit}`}${share === undefined ? '' : html` <span class="muted">(${Math.round(share * 100)} %)</span>`}</div>`;
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
