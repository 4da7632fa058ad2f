import { html, nothing, type TemplateResult } from 'lit-html';
import type { AdminRehearsalResponse } from '../admin-api-types.js';
import type { AdminApi } from '../admin-api.js';

type Scenario = AdminRehearsalResponse['scenarios'][number];

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
  const routes = [...new Set(result.scenarios.map((scenario) => scenario.route))];
  return html`<p class="rehearsal-summary">
      ${result.scenarios_total} scenarios in ${(result.duration_ms / 1000).toFixed(1)} s:
      ${result.failed === 0 ? 'every verdict passed' : html`<strong>${result.failed} failed</strong>`}.
    </p>
    ${routes.map((route) => routeTable(route, result.scenarios.filter((scenario) => scenario.route === route)))}`;
}

function routeTable(route: string, scenarios: readonly Scenario[]): TemplateResult {
  const targets = [...new Map(scenarios.map((scenario) => [scenario.position, scenario.target]))];
  const faults = [...new Set(scenarios.map((scenario) => scenario.fault))];
  const advice = [...new Set(scenarios.flatMap((scenario) => scenario.verdicts.flatMap((verdict) => (verdict.pass || !verdict.advice ? [] : [verdict.advice]))))];
  return html`<article class="rehearsal" data-route=${route}>
    <h3>${route}</h3>
    <div class="table-wrap">
      <table class="rehearsal-cells">
        <thead>
          <tr>
            <th scope="col">Fault</th>
            ${targets.map(([position, target]) => html`<th scope="col" class="mono wraps">${position + 1}. ${target}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${faults.map(
            (fault) => html`<tr>
              <th scope="row">${fault}</th>
              ${targets.map(([position]) => cell(scenarios.find((scenario) => scenario.fault === fault && scenario.position === position)))}
            </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${advice.length > 0 ? html`<ul class="advice">${advice.map((line) => html`<li>${line}</li>`)}</ul>` : nothing}
  </article>`;
}

function cell(scenario: Scenario | undefined): TemplateResult {
  if (!scenario) return html`<td>—</td>`;
  const slowest = Math.max(...scenario.calls.map((call) => call.end_ms));
  const failed = scenario.verdicts.filter((verdict) => !verdict.pass);
  return html`<td class=${scenario.pass ? '' : 'finding'} data-fault=${scenario.fault} title=${scenario.verdicts.map((verdict) => `${verdict.goal}: ${verdict.detail}`).join('\n')}>
    ${scenario.pass ? 'pass' : html`<strong>FAIL</strong>`} ${(slowest / 1000).toFixed(1)} s${failed.length > 0 ? html` <span class="muted">(${failed.map((verdict) => verdict.goal).join(', ')})</span>` : nothing}
  </td>`;
}
