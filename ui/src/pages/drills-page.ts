import { html, nothing, render, type TemplateResult } from 'lit-html';
import { stepFailed } from '../../../src/drills/drill-run.js';
import type { AdminCanariesResponse, AdminCanaryRunsResponse, AdminDrillResponse, CanaryRouteView, DrillRun } from '../admin-api-types.js';
import { AdminApiError } from '../admin-api.js';
import { ConfirmDialog } from '../confirm-dialog.js';
import { formatMs, timeCell } from '../format-time.js';
import type { Page } from '../page.js';
import { RehearsalSection } from './rehearsal-section.js';

/** Runs an `auto` baseline is learned from. */
const BASELINE_RUNS = 3;
/** How often a running drill's progress is read while it runs. */
const PROGRESS_MS = 1_000;

/**
 * Drills: the latest fallback drill's steps (failed ones highlighted as findings), a rehearsal of
 * the config against every fault (rehearsal-section.ts), and each canary's scores against its baseline; either can be run from here after a confirmation (by a
 * role that may run it: for the others there is no button), and a running drill's steps appear as
 * they finish. A gateway without these endpoints (404) has run none.
 */
export const drillsPage: Page = (root, { api, navigate, can }) => {
  let drill: DrillRun | null | undefined;
  let canaries: CanaryRouteView[] | null | undefined;
  let error: string | undefined;
  /** What the last run asked from this page came to, for the live region. */
  let notice = '';
  let drillRoute = '';
  let drillAsked = false;
  const canariesAsked = new Set<string>();
  let progressTimer: ReturnType<typeof setInterval> | undefined;
  let stopped = false;

  const draw = () => {
    if (stopped) return;
    const running = drillAsked || (drill !== null && drill !== undefined && drill.finished_at === null);
    render(
      html`<h1 tabindex="-1">Drills</h1>
        <p class="visually-hidden" aria-live="polite">${notice}</p>
        ${error ? html`<p class="error" role="alert">${error}</p>` : nothing}
        <section aria-labelledby="drill-heading">
          <h2 id="drill-heading">Latest fallback drill</h2>
          ${can('POST /admin/drills')
            ? html`<form class="filters" @submit=${askDrill}>
                <label
                  >Route to drill
                  <input name="route" list="drill-routes" placeholder="every drill route" .value=${drillRoute} @input=${(event: Event) => (drillRoute = (event.currentTarget as HTMLInputElement).value)} />
                </label>
                <datalist id="drill-routes">${knownRoutes(drill, canaries).map((route) => html`<option value=${route}></option>`)}</datalist>
                <button type="submit" ?disabled=${running}>Run drill</button>
                ${running ? html`<span role="status" class="tag">drill running${drill && drill.finished_at === null ? ` — ${drill.steps.length} step${drill.steps.length === 1 ? '' : 's'} so far` : ''}</span>` : nothing}
              </form>`
            : running
              ? html`<p role="status" class="tag">drill running</p>`
              : nothing}
          ${drill === undefined ? html`<p class="muted">Loading…</p>` : drill === null ? html`<p>No drill has run yet.</p>` : drillTable(drill, navigate)}
        </section>
        ${rehearsal.template(can('POST /admin/rehearsals'))}
        <section aria-labelledby="canary-heading">
          <h2 id="canary-heading">Quality canaries</h2>
          ${canaries === undefined
            ? html`<p class="muted">Loading…</p>`
            : canaries === null || canaries.length === 0
              ? html`<p>No canary has run yet.</p>`
              : canaries.map((canary) => canaryView(canary, canariesAsked.has(canary.route) || canary.running !== null, can('POST /admin/canaries') ? () => askCanary(canary.route) : undefined))}
        </section>
        ${confirm.template()}`,
      root,
    );
  };
  const confirm = new ConfirmDialog('run-dialog', root, draw);
  const rehearsal = new RehearsalSection(api, draw);

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
      const [drillAnswer, canaryAnswer] = await Promise.all([optional<AdminDrillResponse>('/admin/drills'), optional<AdminCanariesResponse>('/admin/canaries')]);
      drill = drillAnswer;
      canaries = canaryAnswer === null ? null : canaryAnswer.data;
    } catch (failure) {
      error = `The drills could not be read: ${(failure as Error).message}`;
      drill ??= null;
      canaries ??= null;
    }
    followProgress();
    draw();
  }

  /** While a drill runs (asked here or elsewhere), its steps are read again every second. */
  function followProgress(): void {
    const running = drillAsked || drill?.finished_at === null;
    if (running && progressTimer === undefined && !stopped) progressTimer = setInterval(() => void readProgress(), PROGRESS_MS);
    if (!running && progressTimer !== undefined) {
      clearInterval(progressTimer);
      progressTimer = undefined;
    }
  }

  async function readProgress(): Promise<void> {
    try {
      const latest = await optional<AdminDrillResponse>('/admin/drills');
      // The asked-for run's own answer is final; a progress read still in flight must not undo it.
      if (latest && !(drill && drill.id === latest.id && drill.finished_at !== null)) drill = latest;
    } catch {
      // The next read, or the run's own answer, says more.
    }
    followProgress();
    draw();
  }

  function askDrill(event: SubmitEvent): void {
    event.preventDefault();
    const route = drillRoute.trim();
    confirm.open({
      title: route === '' ? 'Run the fallback drill?' : `Drill the route “${route}”?`,
      body: `${route === '' ? 'Every route the drills config names' : `The route ${route}`} gets one real, billed request per target and per fallback path, one at a time; a failed step raises a drill_failed alert.`,
      action: 'Run drill',
      run: () => void runDrill(route),
    });
  }

  async function runDrill(route: string): Promise<void> {
    drillAsked = true;
    error = undefined;
    notice = 'Drill started.';
    followProgress();
    draw();
    try {
      const finished = await api.post<AdminDrillResponse>('/admin/drills', route === '' ? {} : { route });
      drill = finished;
      const findings = finished.steps.filter(stepFailed).length;
      notice = `Drill finished: ${finished.steps.length} steps, ${findings} finding${findings === 1 ? '' : 's'}.`;
    } catch (failure) {
      error = `The drill did not run: ${(failure as Error).message}`;
    }
    drillAsked = false;
    followProgress();
    draw();
  }

  function askCanary(route: string): void {
    confirm.open({
      title: `Run the canary of “${route}”?`,
      body: `Each of its prompts is sent through ${route} as a real, billed request and scored; a score below the threshold raises a canary_drop alert.`,
      action: 'Run canary',
      run: () => void runCanary(route),
    });
  }

  async function runCanary(route: string): Promise<void> {
    canariesAsked.add(route);
    error = undefined;
    notice = `Canary of ${route} started.`;
    draw();
    try {
      const { data } = await api.post<AdminCanaryRunsResponse>('/admin/canaries', { route });
      const run = data[0];
      notice = run ? `Canary of ${route} finished: score ${score(run.score)}${run.dropped ? ', below its threshold' : ''}.` : `Canary of ${route} finished.`;
    } catch (failure) {
      error = `The canary did not run: ${(failure as Error).message}`;
    }
    canariesAsked.delete(route);
    await load();
  }

  draw();
  void load();
  return () => {
    stopped = true;
    if (progressTimer !== undefined) clearInterval(progressTimer);
  };
};

/** Routes the operator may mean: those of the latest drill and the canaries. */
function knownRoutes(drill: DrillRun | null | undefined, canaries: CanaryRouteView[] | null | undefined): string[] {
  return [...new Set([...(drill?.steps.map((step) => step.route) ?? []), ...(canaries?.map((canary) => canary.route) ?? [])])];
}

function drillTable(drill: DrillRun, navigate: (url: string) => void): TemplateResult {
  const findings = drill.steps.filter(stepFailed).length;
  return html`<p>Started ${timeCell(drill.started_at)}, finished ${timeCell(drill.finished_at, 'not yet')}: ${drill.steps.length} steps, ${findings === 0 ? 'no finding' : html`<strong>${findings} finding${findings === 1 ? '' : 's'}</strong>`}.</p>
    <div class="table-wrap">
      <table class="drill-steps">
        <thead>
          <tr>
            <th scope="col">Route</th>
            <th scope="col">Step</th>
            <th scope="col">Target</th>
            <th scope="col">Result</th>
            <th scope="col">Message</th>
            <th scope="col">Took</th>
            <th scope="col">Request</th>
          </tr>
        </thead>
        <tbody>
          ${drill.steps.map(
            (step) => html`<tr class=${stepFailed(step) ? 'finding' : step.result === 'skipped' ? 'muted' : ''}>
              <td>${step.route}</td>
              <td class="nowrap">${step.step} ${step.position}</td>
              <td class="mono wraps">${step.connection}/${step.model}</td>
              <td>${stepFailed(step) ? html`<strong>${step.result}</strong>` : step.result === 'skipped' ? `skipped (${step.kind ?? 'busy'})` : step.result}</td>
              <td class="message">${step.message ?? ''}</td>
              <td class="nowrap">${formatMs(step.latency_ms)}</td>
              <td class="request-id">
                ${step.request_id
                  ? html`<a
                      class="mono"
                      href=${`/ui/requests/${encodeURIComponent(step.request_id)}`}
                      title=${step.request_id}
                      @click=${(event: MouseEvent) => {
                        event.preventDefault();
                        navigate(`/ui/requests/${encodeURIComponent(step.request_id)}`);
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

const score = (value: number | null) => (value === null ? '—' : value.toFixed(2));

/** `ask` runs the canary; without it (a role that may not) there is no button. */
function canaryView(canary: CanaryRouteView, running: boolean, ask: (() => void) | undefined): TemplateResult {
  const threshold = canary.baseline === null ? null : canary.baseline - canary.max_drop;
  return html`<article class="canary" data-canary=${canary.route}>
    <h3>${canary.route}</h3>
    <p>
      ${canary.baseline === null
        ? `Learning the baseline (${canary.baseline_runs} of ${BASELINE_RUNS} complete runs).`
        : `Baseline ${score(canary.baseline)}, alert below ${score(threshold)} (max drop ${canary.max_drop}).`}
      ${running ? html` <span class="tag" role="status">running</span>` : nothing}
    </p>
    ${ask ? html`<p><button type="button" class="quiet" ?disabled=${running} @click=${ask}>Run canary of ${canary.route}</button></p>` : nothing}
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
