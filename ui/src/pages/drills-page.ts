import { html, nothing, render, type TemplateResult } from 'lit-html';
import { AdminApiError } from '../admin-api.js';
import { formatMs, timeCell } from '../format-time.js';
import type { Page } from '../page.js';

interface DrillStep {
  route: string;
  step: 'target' | 'chain';
  position: number;
  connection: string;
  model: string;
  result: string;
  kind?: string | null;
  message?: string | null;
  latency_ms?: number | null;
  request_id?: string | null;
}

interface DrillRun {
  started_at: string;
  finished_at: string | null;
  steps: DrillStep[];
}

interface CanaryRun {
  started_at?: string;
  score?: number | null;
  prompts?: { score?: number | null; served?: string }[];
}

interface CanaryRoute {
  route: string;
  baseline?: number | null;
  max_drop?: number | null;
  runs?: CanaryRun[];
}

/**
 * Drills: the latest fallback drill's steps (failed ones highlighted as findings) and each
 * canary's scores against its baseline. A gateway without these endpoints (404) has run none.
 */
export const drillsPage: Page = (root, { api, navigate }) => {
  let drill: DrillRun | null | undefined;
  let canaries: CanaryRoute[] | null | undefined;
  let error: string | undefined;

  const draw = () =>
    render(
      html`<h1 tabindex="-1">Drills</h1>
        ${error ? html`<p class="error" role="alert">${error}</p>` : nothing}
        <section aria-labelledby="drill-heading">
          <h2 id="drill-heading">Latest fallback drill</h2>
          ${drill === undefined ? html`<p class="muted">Loading…</p>` : drill === null ? html`<p>No drill has run yet.</p>` : drillTable(drill, navigate)}
        </section>
        <section aria-labelledby="canary-heading">
          <h2 id="canary-heading">Quality canaries</h2>
          ${canaries === undefined ? html`<p class="muted">Loading…</p>` : canaries === null || canaries.length === 0 ? html`<p>No canary has run yet.</p>` : canaries.map(canaryView)}
        </section>`,
      root,
    );

  /** null when the gateway has no such endpoint or nothing ran yet (404). */
  async function optional<T>(path: string): Promise<T | null> {
    try {
      return await api.get<T>(path);
    } catch (failure) {
      if (failure instanceof AdminApiError && failure.status === 404) return null;
      throw failure;
    }
  }

  async function load(): Promise<void> {
    try {
      const [drillAnswer, canaryAnswer] = await Promise.all([optional<DrillRun>('/admin/drills'), optional<{ data?: CanaryRoute[] } | CanaryRoute[]>('/admin/canaries')]);
      drill = drillAnswer && Array.isArray(drillAnswer.steps) ? drillAnswer : null;
      canaries = canaryAnswer === null ? null : Array.isArray(canaryAnswer) ? canaryAnswer : (canaryAnswer.data ?? []);
    } catch (failure) {
      error = `The drills could not be read: ${(failure as Error).message}`;
      drill ??= null;
      canaries ??= null;
    }
    draw();
  }
  draw();
  void load();
  return () => undefined;
};

function drillTable(drill: DrillRun, navigate: (url: string) => void): TemplateResult {
  const findings = drill.steps.filter((step) => step.result !== 'ok').length;
  return html`<p>Started ${timeCell(drill.started_at)}, finished ${timeCell(drill.finished_at, 'not yet')}: ${drill.steps.length} steps, ${findings === 0 ? 'no finding' : html`<strong>${findings} finding${findings === 1 ? '' : 's'}</strong>`}.</p>
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Route</th>
            <th scope="col">Step</th>
            <th scope="col">Position</th>
            <th scope="col">Target</th>
            <th scope="col">Result</th>
            <th scope="col">Message</th>
            <th scope="col">Took</th>
            <th scope="col">Request</th>
          </tr>
        </thead>
        <tbody>
          ${drill.steps.map(
            (step) => html`<tr class=${step.result === 'ok' ? '' : 'finding'}>
              <td>${step.route}</td>
              <td>${step.step}</td>
              <td>${step.position}</td>
              <td class="mono">${step.connection}/${step.model}</td>
              <td>${step.result === 'ok' ? 'ok' : html`<strong>${step.kind ?? step.result}</strong>`}</td>
              <td>${step.message ?? ''}</td>
              <td>${formatMs(step.latency_ms)}</td>
              <td>
                ${step.request_id
                  ? html`<a
                      class="mono"
                      href=${`/ui/requests/${encodeURIComponent(step.request_id)}`}
                      @click=${(event: MouseEvent) => {
                        event.preventDefault();
                        navigate(`/ui/requests/${encodeURIComponent(step.request_id!)}`);
                      }}
                      >${step.request_id}</a
                    >`
                  : '—'}
              </td>
            </tr>`,
          )}
        </tbody>
      </table>
    </div>`;
}

function canaryView(canary: CanaryRoute): TemplateResult {
  const runs = canary.runs ?? [];
  const threshold = canary.baseline === null || canary.baseline === undefined ? undefined : canary.baseline - (canary.max_drop ?? 0);
  const score = (value: number | null | undefined) => (value === null || value === undefined ? '—' : value.toFixed(2));
  return html`<article class="canary">
    <h3>${canary.route}</h3>
    <p>Baseline ${score(canary.baseline)}${threshold === undefined ? '' : `, alert below ${score(threshold)}`}.</p>
    ${runs.length === 0
      ? html`<p>No run yet.</p>`
      : html`<ol class="scores">
          ${runs.map((run) => {
            const dropped = threshold !== undefined && run.score !== null && run.score !== undefined && run.score < threshold;
            const share = Math.max(0, Math.min(1, run.score ?? 0));
            return html`<li class=${dropped ? 'finding' : ''}>
              <span class="score-bar"><span style="width: ${(share * 100).toFixed(0)}%"></span>${canary.baseline === null || canary.baseline === undefined ? nothing : html`<i style="left: ${(Math.min(1, canary.baseline) * 100).toFixed(0)}%" title="baseline"></i>`}</span>
              ${score(run.score)} ${timeCell(run.started_at)}${dropped ? html` <strong>below the threshold</strong>` : nothing}
              ${run.prompts?.length ? html`<span class="muted"> — served by ${[...new Set(run.prompts.map((prompt) => prompt.served).filter(Boolean))].join(', ')}</span>` : nothing}
            </li>`;
          })}
        </ol>`}
  </article>`;
}
