import { html, nothing, type TemplateResult } from 'lit-html';
import type { AdminApi } from './admin-api.js';
import type { AdminTeamsResponse, TeamView } from './admin-api-types.js';

/**
 * The teams a page's figures or list can be narrowed to (`team=`): those the caller may see, which
 * for a team_admin or member are its own. None when the role may not list teams or the list fails:
 * the page then shows no filter, and the gateway still narrows a team role's figures to its teams.
 */
export async function teamsToFilterBy(api: AdminApi, can: (route: string) => boolean): Promise<TeamView[]> {
  if (!can('GET /admin/teams')) return [];
  try {
    return (await api.get<AdminTeamsResponse>('/admin/teams')).data;
  } catch {
    return [];
  }
}

/**
 * The `team` select, "All teams" first; nothing while there is no team to choose. `selected` is the
 * URL's `team` (an id, or a name typed into the URL); `onChange`, when given, applies a choice at once.
 */
export function teamChoice(teams: readonly TeamView[], selected: string | null, onChange?: (team: string) => void): TemplateResult | typeof nothing {
  if (teams.length === 0 && !selected) return nothing;
  const chosen = selected === null ? undefined : teams.find((team) => team.id === selected || team.name === selected);
  const changed = (event: Event) => onChange?.((event.currentTarget as HTMLSelectElement).value);
  return html`<label
    >Team
    <select name="team" @change=${changed}>
      <option value="">All teams</option>
      ${teams.map((team) => html`<option value=${team.id} ?selected=${team === chosen}>${team.name}</option>`)}
      ${selected && !chosen ? html`<option value=${selected} selected>${selected}</option>` : nothing}
    </select></label
  >`;
}

/** A team's name for a page to say whose figures it shows; the id itself when the team is not listed (deleted). */
export function teamName(teams: readonly TeamView[], idOrName: string): string {
  return teams.find((team) => team.id === idOrName || team.name === idOrName)?.name ?? idOrName;
}
