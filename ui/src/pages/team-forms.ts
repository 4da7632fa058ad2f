import { html, nothing, type TemplateResult } from 'lit-html';
import { durationText } from '../../../src/core/duration-text.js';
import type { TeamView } from '../admin-api-types.js';
import { FormFields, periodChoice } from '../form-fields.js';

/** What a form does when sent, how it is left without sending, and why its last sending failed. */
export interface FormHandling {
  submit(event: SubmitEvent): void;
  cancel?: () => void;
  error: string | undefined;
}

const HOUR_S = 3_600;

/** `POST /admin/teams`: a name, and the budget, limits and route bounds it starts with (the default exploration policy). */
export function createTeamForm(handling: FormHandling): TemplateResult {
  return html`<section aria-labelledby="create-team-heading">
    <h2 id="create-team-heading">Create a team</h2>
    <form class="create-key" aria-label="Create a team" @submit=${handling.submit}>
      <label>Name <input name="name" required /></label>
      ${teamFields(undefined)}
      <button type="submit">Create team</button>
      ${errorOf(handling)}
    </form>
  </section>`;
}

/** `PATCH /admin/teams/:id` of what only an admin changes: its name, budget, limits and route bounds. */
export function changeTeamForm(team: TeamView, handling: FormHandling): TemplateResult {
  return html`<form class="create-key" aria-label=${`Change team ${team.name}`} @submit=${handling.submit}>
    <label>Name <input name="name" required .value=${team.name} /></label>
    ${teamFields(team)}
    ${buttons('Save team', handling)}
  </form>`;
}

/** `PATCH /admin/teams/:id` of the exploration policy alone: what a team's own team_admin may change. */
export function explorationPolicyForm(team: TeamView, handling: FormHandling): TemplateResult {
  const policy = team.exploration;
  return html`<form class="create-key" aria-label=${`Exploration policy of ${team.name}`} @submit=${handling.submit}>
    <label>Keys live at most (hours) <input name="max_ttl_h" type="number" min="0.01" step="any" required .value=${String(policy.max_ttl_s / HOUR_S)} /></label>
    <label>Budget per key (USD) <input name="budget" type="number" min="0" step="any" .value=${policy.budget ? String(policy.budget.usd) : ''} /></label>
    <label>Budget period ${periodChoice('period', policy.budget?.period)}</label>
    <label>Requests per minute <input name="rpm" type="number" min="1" step="1" .value=${numberText(policy.limits.rpm)} /></label>
    <label>Tokens per minute <input name="tpm" type="number" min="1" step="1" .value=${numberText(policy.limits.tpm)} /></label>
    ${buttons('Save policy', handling)}
  </form>`;
}

/** `POST /admin/keys` of an exploration key for whoever is signed in: the policy gives it its expiry, limits and budget. */
export function explorationKeyForm(team: TeamView, handling: FormHandling): TemplateResult {
  return html`<form class="create-key" aria-label=${`Exploration key in ${team.name}`} @submit=${handling.submit}>
    <label>Key name <input name="name" required /></label>
    <label>Expires <span class="muted">(empty: in ${durationText(team.exploration.max_ttl_s)}, the longest allowed)</span> <input name="expires" type="datetime-local" /></label>
    ${buttons('Make key', handling)}
  </form>`;
}

/** A new team, or a change of one: every field of the form, an empty one null (none, or cleared: the patch is a merge patch). */
export function teamBody(fields: FormFields): Record<string, unknown> {
  return { name: fields.text('name'), budget: fields.budget(), limits: fields.limits(), routes: fields.routes() };
}

export function explorationPolicyBody(fields: FormFields): Record<string, unknown> {
  const hours = fields.number('max_ttl_h');
  return { exploration: { max_ttl_s: hours === null ? null : Math.round(hours * HOUR_S), limits: fields.limits(), budget: fields.budget() } };
}

export function explorationKeyBody(team: TeamView, fields: FormFields): Record<string, unknown> {
  const expires = fields.time('expires');
  return { name: fields.text('name'), team: team.id, kind: 'exploration', ...(expires ? { expires_at: expires } : {}) };
}

function teamFields(team: TeamView | undefined): TemplateResult {
  return html`<label>Budget (USD) <input name="budget" type="number" min="0" step="any" .value=${team?.budget ? String(team.budget.usd) : ''} /></label>
    <label>Budget period ${periodChoice('period', team?.budget?.period)}</label>
    <label>Requests per minute <input name="rpm" type="number" min="1" step="1" .value=${numberText(team?.limits.rpm ?? null)} /></label>
    <label>Tokens per minute <input name="tpm" type="number" min="1" step="1" .value=${numberText(team?.limits.tpm ?? null)} /></label>
    <label>Routes <input name="routes" placeholder="all, or globs: support-*, chat" .value=${team?.routes ? team.routes.join(', ') : ''} /></label>`;
}

function buttons(action: string, handling: FormHandling): TemplateResult {
  return html`<button type="submit">${action}</button>
    ${handling.cancel ? html`<button type="button" class="quiet" @click=${handling.cancel}>Cancel</button>` : nothing} ${errorOf(handling)}`;
}

function errorOf(handling: FormHandling): TemplateResult | typeof nothing {
  return handling.error ? html`<p class="error" role="alert">${handling.error}</p>` : nothing;
}

function numberText(value: number | null): string {
  return value === null ? '' : String(value);
}
