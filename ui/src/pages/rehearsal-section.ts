import { html, nothing, type TemplateResult } from 'lit-html';
import type { AdminRehearsalResponse } from '../admin-api-types.js';
import type { AdminApi } from '../admin-api.js';
import type { RehearsalScenarioView } from '../../../src/rehearsal/rehearsal-document.js';
import { cellFigures, routeGrids, type RouteGrid } from '../../../src/rehearsal/rehearsal-grid.js';

/**
 * The Drills page's rehearsal (docs/rehearse.md): the config in force played against every fault
 * with the mock standing in for every provider, run on demand by a role that may (it costs
 * nothing, so it asks no confirmation), shown as a table per route — faults × target positions,
 * each cell a verdict with the caller's time — with the advice for what failed.
 */
export class RehearsalSection {
  readonly #api: AdminApi;
  readonly #redraw: () => void;
  #result: AdminRehearsalResponse | undefined;
  #running = false;
  #error: string | undefined;
  #routes = '';

  constructor(api: AdminApi, redraw: () => void) {
    this.#api = api;
    this.#redraw = redraw;
  }

  /** `canRun`: the signed-in role may run one (else the section only says what it is). */
  template(canRun: boolean): TemplateResult {
    return html`<section aria-labelledby="rehearsal-heading">
      <h2 id="rehearsal-heading">Rehearsal</h2>
      <p class="muted">Every route of the config in force, every target, against every fault of the catalogue — the mock standing in for every provider, so nothing is called or billed.</p>
      ${canRun
        ? html`<form class="filters" @submit=${(event: SubmitEvent) => this.#ask(event)}>
            <label
              >Routes
              <input name="rehearsal-routes" placeholder="every route" .value=${this.#routes} @input=${(event: Event) => (this.#routes = (event.currentTarget as HTMLInputElement).value)} />
            </label>
            <button type="submit" ?disabled=${this.#running}>Rehearse</button>
            ${this.#running ? html`<span role="status" class="tag">rehearsing…</span>` : nothing}
          </form>`
        : nothing}
      ${this.#error ? html`<p class="error" role="alert">${this.#error}</p>` : nothing}
      ${this.#result ? report(this.#result) : nothing}
    </section>`;
  }

  async #ask(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const routes = this.#routes
      .split(',')
      .map((route) => route.trim())
      .filter((route) => route !== '');
    this.#running = true;
    this.#error = undefined;
    this.#redraw();
    try {
      this.#result = await this.#api.post<AdminRehearsalResponse>('/admin/rehearsals', routes.length > 0 ? { routes } : {});
    } catch (failure) {
      this.#error = `The rehearsal did not run: ${(failure as Error).message}`;
    }
    this.#running = false;
    this.#redraw();
  }
}

function report(result: AdminRehearsalResponse): TemplateResult {
  return html`<p class="rehearsal-summary">
      ${result.scenarios_total} scenarios in ${(result.duration_ms / 1000).toFixed(1)} s:
      ${result.failed === 0 ? 'every verdict passed' : html`<strong>${result.failed} failed</strong>`}.
    </p>
    ${routeGrids(result).map(routeTable)}`;
}

function routeTable(grid: RouteGrid): TemplateResult {
  return html`<article class="rehearsal" data-route=${grid.route}>
    <h3>${grid.route}</h3>
    <div class="table-wrap">
      <table class="rehearsal-cells">
        <thead>
          <tr>
            <th scope="col">Fault</th>
            ${grid.targets.map((target) => html`<th scope="col" class="mono wraps">${target}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${grid.rows.map(
            (row) => html`<tr>
              <th scope="row">${row.fault}</th>
              ${row.cells.map(cell)}
            </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${grid.advice.length > 0 ? html`<ul class="advice">${grid.advice.map(({ advice, where }) => html`<li>${advice} <span class="muted">(${where.join(', ')})</span></li>`)}</ul>` : nothing}
  </article>`;
}

function cell(scenario: RehearsalScenarioView | undefined): TemplateResult {
  if (!scenario) return html`<td>—</td>`;
  const { seconds, failedGoals } = cellFigures(scenario);
  return html`<td class=${scenario.pass ? '' : 'finding'} data-fault=${scenario.fault} title=${scenario.verdicts.map((verdict) => `${verdict.goal}: ${verdict.detail}`).join('\n')}>
    ${scenario.pass ? 'pass' : html`<strong>FAIL</strong>`} ${seconds} s${failedGoals.length > 0 ? html` <span class="muted">(${failedGoals.join(', ')})</span>` : nothing}
  </td>`;
}
