import { html, nothing, render, type TemplateResult } from 'lit-html';
import { holdsTeamRole } from '../../../src/core/actor.js';
import type { AdminKeysResponse, AdminTeamsResponse, AdminTokensResponse, CreatedKeyView, KeyView, TeamSpendView, TeamView } from '../admin-api-types.js';
import { ConfirmDialog } from '../confirm-dialog.js';
import { FormFields } from '../form-fields.js';
import { NewSecret } from '../new-secret.js';
import type { Page } from '../page.js';
import { teamCard, type TeamActions } from './team-card.js';
import { changeTeamForm, createTeamForm, explorationKeyBody, explorationKeyForm, explorationPolicyBody, explorationPolicyForm, teamBody, type FormHandling } from './team-forms.js';

/** The forms a team's card opens, one at a time. */
type TeamFormName = 'change' | 'exploration' | 'key';

/**
 * Teams: each team the caller may see with its spend against its budget, its limits, route bounds
 * and exploration policy, and its service and exploration keys apart. An admin creates, changes
 * and deletes teams; a team's team_admin changes its exploration policy; anyone holding a role in
 * a team makes an exploration key for themselves there (the secret shown once).
 */
export const teamsPage: Page = (root, { api, me, can }) => {
  let teams: TeamView[] | undefined;
  let keys: KeyView[] = [];
  const spend = new Map<string, TeamSpendView>();
  /** Token names by id, for an exploration key's owner, when the role may list tokens. */
  const tokenNames = new Map<string, string>();
  let error: string | undefined;
  let notice: string | undefined;
  let showInactive = false;
  let open: { team: string; form: TeamFormName } | undefined;
  let formError: string | undefined;
  let createError: string | undefined;
  /** A refusal of a team's deletion (its active keys), shown on its card. */
  let teamError: { team: string; message: string } | undefined;

  const grants = { global: me.global_role, grants: me.teams };
  const isAdmin = me.global_role === 'admin';
  const ownerName = (id: string) => (id === me.id ? `${me.name} (you)` : (tokenNames.get(id) ?? id));

  const draw = () =>
    render(
      html`<h1 tabindex="-1">Teams</h1>
        <p class="visually-hidden" aria-live="polite">${notice ?? ''}</p>
        ${error ? html`<p class="error" role="alert">${error}</p>` : nothing}
        ${secret.template()}
        <label class="inline"><input type="checkbox" .checked=${showInactive} @change=${toggleInactive} /> Show revoked and expired keys</label>
        ${teams === undefined ? html`<p class="muted">Loading…</p>` : teams.length === 0 ? html`<p>No team yet.</p>` : teams.map(card)}
        ${can('POST /admin/teams') ? createTeamForm({ submit: (event) => void createTeam(event), error: createError }) : nothing}
        ${confirm.template()}`,
      root,
    );
  const confirm = new ConfirmDialog('delete-team-dialog', root, draw);
  const secret = new NewSecret(root, draw);

  const card = (team: TeamView): TemplateResult =>
    teamCard({
      team,
      spend: spend.get(team.id),
      keys: keys.filter((key) => key.team === team.id && (showInactive || key.status === 'active')),
      seesEveryKey: holdsTeamRole(grants, team.id, ['auditor', 'team_admin']),
      ownerName,
      actions: actionsOn(team),
      form: open?.team === team.id ? formOf(team, open.form) : nothing,
      error: teamError?.team === team.id ? teamError.message : undefined,
    });

  /** Only what the role may do to this team: `allowed` says which endpoints, the grants in which teams. */
  function actionsOn(team: TeamView): TeamActions {
    const actions: TeamActions = {};
    const toggle = (form: TeamFormName) => () => {
      open = open?.team === team.id && open.form === form ? undefined : { team: team.id, form };
      formError = undefined;
      draw();
    };
    if (can('POST /admin/keys') && holdsTeamRole(grants, team.id, ['team_admin', 'member'])) actions.makeExplorationKey = toggle('key');
    // A team_admin may patch its team's exploration policy only; the rest is an admin's.
    if (can('PATCH /admin/teams/:id') && isAdmin) actions.change = toggle('change');
    if (can('PATCH /admin/teams/:id') && holdsTeamRole(grants, team.id, ['team_admin'])) actions.changeExploration = toggle('exploration');
    if (can('DELETE /admin/teams/:id')) actions.delete = () => askDelete(team);
    return actions;
  }

  function formOf(team: TeamView, form: TeamFormName): TemplateResult {
    const handling = (submit: (fields: FormFields) => Promise<void>): FormHandling => ({
      submit: (event) => void send(event, submit),
      cancel: () => {
        open = undefined;
        draw();
      },
      error: formError,
    });
    if (form === 'change') return changeTeamForm(team, handling((fields) => changeTeam(team, teamBody(fields), `Team ${team.name} changed.`)));
    if (form === 'exploration') return explorationPolicyForm(team, handling((fields) => changeTeam(team, explorationPolicyBody(fields), `The exploration policy of ${team.name} changed.`)));
    return explorationKeyForm(team, handling((fields) => makeExplorationKey(explorationKeyBody(team, fields))));
  }

  async function load(): Promise<void> {
    try {
      const [teamList, keyList] = await Promise.all([api.get<AdminTeamsResponse>('/admin/teams'), api.get<AdminKeysResponse>('/admin/keys'), loadTokenNames()]);
      teams = teamList.data;
      keys = keyList.data;
      error = undefined;
      draw();
      await Promise.all(teams.map(async (team) => spend.set(team.id, await api.get<TeamSpendView>(`/admin/teams/${encodeURIComponent(team.id)}/spend`))));
    } catch (failure) {
      error = `The teams could not be read: ${(failure as Error).message}`;
    }
    draw();
  }

  async function loadTokenNames(): Promise<void> {
    if (!can('GET /admin/tokens')) return;
    try {
      for (const token of (await api.get<AdminTokensResponse>('/admin/tokens')).data) tokenNames.set(token.id, token.name);
    } catch {
      // An owner is then shown by its id, which is what the key holds anyway.
    }
  }

  /** Sends an open form; its error stays on it when the gateway refuses. */
  async function send(event: SubmitEvent, submit: (fields: FormFields) => Promise<void>): Promise<void> {
    event.preventDefault();
    try {
      await submit(new FormFields(event.currentTarget as HTMLFormElement));
      open = undefined;
      formError = undefined;
    } catch (failure) {
      formError = (failure as Error).message;
      draw();
      return;
    }
    await load();
  }

  async function createTeam(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    try {
      const team = await api.post<TeamView>('/admin/teams', teamBody(new FormFields(form)));
      createError = undefined;
      notice = `Team ${team.name} created.`;
      form.reset();
    } catch (failure) {
      createError = `The team was not created: ${(failure as Error).message}`;
      draw();
      return;
    }
    await load();
  }

  async function changeTeam(team: TeamView, body: Record<string, unknown>, done: string): Promise<void> {
    await api.patch<TeamView>(`/admin/teams/${encodeURIComponent(team.id)}`, body);
    notice = done;
  }

  async function makeExplorationKey(body: Record<string, unknown>): Promise<void> {
    const created = await api.post<CreatedKeyView>('/admin/keys', body);
    secret.show(created.name, created.key);
  }

  function askDelete(team: TeamView): void {
    confirm.open({
      title: `Delete team “${team.name}”?`,
      body: 'Only a team without active keys can be deleted. Its records and spend stay, under its id.',
      action: 'Delete team',
      danger: true,
      run: () => void deleteTeam(team),
    });
  }

  async function deleteTeam(team: TeamView): Promise<void> {
    try {
      await api.delete(`/admin/teams/${encodeURIComponent(team.id)}`);
      teamError = undefined;
      notice = `Team ${team.name} deleted.`;
    } catch (failure) {
      teamError = { team: team.id, message: `The team was not deleted: ${(failure as Error).message}` };
    }
    await load();
  }

  function toggleInactive(event: Event): void {
    showInactive = (event.currentTarget as HTMLInputElement).checked;
    draw();
  }

  draw();
  void load();
  // Leaving the page drops a secret still shown.
  return () => secret.forget();
};
