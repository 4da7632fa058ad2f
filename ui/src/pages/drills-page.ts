import { html, nothing, render, type TemplateResult } from 'lit-html';
import { AdminApiError } from '../admin-api.js';
import { formatMs, timeCell } from '../format-time.js';
import type { Page } from '../page.js';

/** A drill step as `GET /admin/drills` gives it. */
interface DrillStep {
  route: string;
  step: 'target' | 'chain';
  position: number;
  connection: string;
  model: string;
  /** `ok`, the failure kind, `not_reached` (another target answered) or `skipped` (the connection was busy). */
  result: string;
  kind: string | null;
  message: string | null;
  latency_ms: number;
  request_id: string;
}

interface DrillRun {
  id: string;
  started_at: string;
  finished_at: string | null;
  steps: DrillStep[];
}

/** One canary run as `GET /admin/canaries` gives it: judged against the baseline in force when it ran. */
interface CanaryRun {
  id: string;
  started_at: string;
  finished_at: string;
  score: number;
  baseline: number | null;
  threshold: number | null;
  dropped: boolean;
  prompts: { index: number; score: number; served: string | null; error?: string }[];
}

interface CanaryRoute {
  route: string;
  /** In force now; null while an `auto` baseline is being learned. */
  baseline: number | null;
  baseline_runs: number;
  max_drop: number;
  running: string | null;
  /** Newest first. */
  latest: CanaryRun[];
}

/** Runs an `auto` baseline is learned from. */
const BASELINE_RUNS = 3;

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
      const [drillAnswer, canaryAnswer] = await Promise.all([optional<DrillRun>('/admin/drills'), optional<{ data: CanaryRoute[] }>('/admin/canaries')]);
      drill = drillAnswer;
      canaries = canaryAnswer === null ? null : canaryAnswer.data;
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
  const findings = drill.steps.filter(isFinding).length;
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
            (step) => html`<tr class=${isFinding(step) ? 'finding' : step.result === 'skipped' ? 'muted' : ''}>
              <td>${step.route}</td>
              <td>${step.step}</td>
              <td>${step.position}</td>
              <td class="mono">${step.connection}/${step.model}</td>
              <td>${isFinding(step) ? html`<strong>${step.result}</strong>` : step.result === 'skipped' ? `skipped (${step.kind ?? 'busy'})` : step.result}</td>
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

/** A failed step is a finding; a step skipped because its connection was busy is not. */
function isFinding(step: DrillStep): boolean {
  return step.result !== 'ok' && step.result !== 'skipped';
}

const score = (value: number | null) => (value === null ? '—' : value.toFixed(2));

function canaryView(canary: CanaryRoute): TemplateResult {
  const threshold = canary.baseline === null ? null : canary.baseline - canary.max_drop;
  return html`<article class="canary" data-canary=${canary.route}>
    <h3>${canary.route}</h3>
    <p>
      ${canary.baseline === null
        ? `Learning the baseline (${canary.baseline_runs} of ${BASELINE_RUNS} complete runs).`
        : `Baseline ${score(canary.baseline)}, alert below ${score(threshold)} (max drop ${canary.max_drop}).`}
      ${canary.running ? html` <span class="tag">running</span>` : nothing}
    </p>
    ${canary.latest.length === 0
      ? html`<p>No run yet.</p>`
      : html`<ol class="scores">
          ${canary.latest.map((run) => {
            const share = Math.max(0, Math.min(1, run.score));
            const served = [...new Set(run.prompts.map((prompt) => prompt.served).filter((target) => target !== null))];
            const failed = run.prompts.filter((prompt) => prompt.error !== undefined).length;
            return html`<li class=${run.dropped ? 'finding' : ''} data-run=${run.id}>
              <span class="score-bar"
                ><span style="width: ${(share * 100).toFixed(0)}%"></span
                >${run.baseline === null ? nothing : html`<i style="left: ${(Math.min(1, run.baseline) * 100).toFixed(0)}%" title="baseline"></i>`}</span
              >
              <span class="run-score">score ${score(run.score)}</span>
              <span class="run-baseline">${run.baseline === null ? 'baseline being learned' : `baseline ${score(run.baseline)}, threshold ${score(run.threshold)}`}</span>
              ${timeCell(run.started_at)}${run.dropped ? html` <strong>below the threshold</strong>` : nothing}
              ${served.length > 0 ? html`<span class="muted"> — served by ${served.join(', ')}</span>` : nothing}
              ${failed > 0 ? html`<span class="muted"> — ${failed} of ${run.prompts.length} prompts failed</span>` : nothing}
            </li>`;
          })}
        </ol>`}
  </article>`;
}
