import { html, nothing, type TemplateResult } from 'lit-html';
import { durationText } from '../../../src/core/duration-text.js';
import type { KeyView, TeamSpendView, TeamView } from '../admin-api-types.js';
import { timeCell } from '../format-time.js';
import { budgetText, limitsText } from '../limits-text.js';
import { spendMeter } from '../spend-meter.js';

/** The actions on a team the signed-in role may take: one left out is not shown. */
export interface TeamActions {
  change?: () => void;
  changeExploration?: () => void;
  makeExplorationKey?: () => void;
  delete?: () => void;
}

export interface TeamCard {
  team: TeamView;
  spend: TeamSpendView | undefined;
  /** The team's keys the caller may see and wants shown. */
  keys: KeyView[];
  /** Whether the caller sees every key of the team; a member sees its own exploration keys only. */
  seesEveryKey: boolean;
  /** A key owner's display name by actor id (the signed-in person, tokens an admin may list). */
  ownerName(id: string): string;
  actions: TeamActions;
  /** The form opened by one of the actions, or nothing. */
  form: TemplateResult | typeof nothing;
  error: string | undefined;
}

/** One team: its spend against its budget, limits, route bounds and exploration policy, then its service and exploration keys apart. */
export function teamCard(card: TeamCard): TemplateResult {
  const { team, actions } = card;
  const headingId = `team-${team.id}-heading`;
  const service = card.keys.filter((key) => key.kind === 'service');
  const exploration = card.keys.filter((key) => key.kind === 'exploration');
  const button = (label: string, run: (() => void) | undefined, danger = false) =>
    run ? html`<button type="button" class=${danger ? 'danger' : 'quiet'} @click=${run}>${label}</button>` : nothing;
  return html`<section class="team" data-team=${team.name} aria-labelledby=${headingId}>
    <h2 id=${headingId}>${team.name} <span class="muted mono team-id">${team.id}</span></h2>
    <dl class="summary">
      <div><dt>Spend / budget</dt><dd class="team-spend">${card.spend ? spendMeter(card.spend) : team.budget ? budgetText(team.budget) : '—'}</dd></div>
      <div><dt>Limits, across its keys</dt><dd>${limitsText(team.limits)}</dd></div>
      <div><dt>Routes</dt><dd>${team.routes === null ? 'all' : team.routes.join(', ')}</dd></div>
      <div><dt>Exploration keys</dt><dd class="team-exploration">${explorationText(team.exploration)}</dd></div>
    </dl>
    <div class="toolbar">
      ${button('Make an exploration key', actions.makeExplorationKey)} ${button('Change team', actions.change)}
      ${button('Change exploration policy', actions.changeExploration)} ${button('Delete team', actions.delete, true)}
    </div>
    ${card.form}
    ${card.error ? html`<p class="error" role="alert">${card.error}</p>` : nothing}
    ${card.seesEveryKey ? html`<h3>Service keys</h3>${service.length === 0 ? html`<p class="muted">No service key.</p>` : serviceKeys(service)}` : nothing}
    <h3>${card.seesEveryKey ? 'Exploration keys' : 'Your exploration keys'}</h3>
    ${exploration.length === 0 ? html`<p class="muted">No exploration key.</p>` : explorationKeys(exploration, card.ownerName)}
  </section>`;
}

function serviceKeys(keys: KeyView[]): TemplateResult {
  return html`<div class="table-wrap">
    <table class="team-keys service-keys">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Key</th>
          <th scope="col">Routes</th>
          <th scope="col">Budget</th>
          <th scope="col">Limits</th>
          <th scope="col">Expires</th>
          <th scope="col">Status</th>
        </tr>
      </thead>
      <tbody>
        ${keys.map(
          (key) => html`<tr data-key=${key.name}>
            <th scope="row">${key.name}</th>
            <td class="mono">${key.key_prefix}…</td>
            <td>${key.routes === null ? 'all' : key.routes.join(', ')}</td>
            <td>${key.budget ? budgetText(key.budget) : 'none'}</td>
            <td>${limitsText(key.limits)}</td>
            <td>${timeCell(key.expires_at, 'never')}</td>
            <td>${key.status}</td>
          </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

function explorationKeys(keys: KeyView[], ownerName: (id: string) => string): TemplateResult {
  return html`<div class="table-wrap">
    <table class="team-keys exploration-keys">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Owner</th>
          <th scope="col">Expires</th>
          <th scope="col">Budget</th>
          <th scope="col">Limits</th>
          <th scope="col">Status</th>
        </tr>
      </thead>
      <tbody>
        ${keys.map(
          (key) => html`<tr data-key=${key.name}>
            <th scope="row">${key.name}</th>
            <td class="key-owner" title=${key.owner ?? ''}>${key.owner === null ? '—' : ownerName(key.owner)}</td>
            <td class="key-expiry">${timeCell(key.expires_at, 'never')}</td>
            <td>${key.budget ? budgetText(key.budget) : 'none'}</td>
            <td>${limitsText(key.limits)}</td>
            <td>${key.status}</td>
          </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

function explorationText(policy: TeamView['exploration']): string {
  const parts = [`live at most ${durationText(policy.max_ttl_s)}`];
  if (policy.limits.rpm !== null || policy.limits.tpm !== null) parts.push(limitsText(policy.limits));
  if (policy.budget) parts.push(`${budgetText(policy.budget)} each`);
  return parts.join('; ');
}
