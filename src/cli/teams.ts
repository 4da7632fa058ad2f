import { durationText } from '../core/duration-text.js';
import type { TeamSpendView, TeamView } from '../teams/team-view.js';
import { callAdmin, errorMessage, type AdminClientOptions } from './admin-client.js';
import { formatTable } from './format-table.js';
import { budgetText, fail, labelled, limitFields, routesText, type LimitOptions } from './keys.js';

/** A team's own options and its exploration policy's, as commander hands them over (text, checked here). */
export interface TeamOptions extends AdminClientOptions, LimitOptions {
  name?: string;
  explorationMaxTtlS?: string;
  explorationRpm?: string;
  explorationTpm?: string;
  explorationBudgetUsd?: string;
  explorationBudgetPeriod?: string;
}

export interface TeamsUpdateOptions extends TeamOptions {
  /** Comma-separated fields to clear: budget, limits, routes, exploration (back to the defaults). */
  clear?: string;
}

const CLEARABLE = ['budget', 'limits', 'routes', 'exploration'] as const;

/** `switchyard teams create --name NAME …`: prints the team made; returns the exit code. */
export async function runTeamsCreate(options: TeamOptions): Promise<number> {
  const body = teamBody(options);
  if (typeof body === 'string') return fail(body);
  return printTeamAnswer(await callAdmin('POST', '/admin/teams', options, body), 201, options);
}

/** `switchyard teams list`: one aligned row per team the token may see. */
export async function runTeamsList(options: AdminClientOptions): Promise<number> {
  const answer = await callAdmin('GET', '/admin/teams', options);
  if (!answer.ok) return fail(answer.error);
  if (answer.status !== 200) return fail(`the gateway answered ${answer.status}: ${errorMessage(answer.text)}`);
  const teams = (JSON.parse(answer.text) as { data: TeamView[] }).data;
  if (teams.length === 0) {
    console.log('no teams yet; create one with `switchyard teams create --name NAME`');
    return 0;
  }
  console.log(
    formatTable(
      ['id', 'name', 'budget', 'rpm', 'tpm', 'routes', 'exploration', 'created'],
      teams.map((team) => [
        team.id,
        team.name,
        budgetText(team.budget),
        team.limits.rpm === null ? '-' : String(team.limits.rpm),
        team.limits.tpm === null ? '-' : String(team.limits.tpm),
        routesText(team.routes),
        explorationText(team.exploration),
        team.created_at,
      ]),
    ),
  );
  return 0;
}

/** `switchyard teams show TEAM` (an id or a name). */
export async function runTeamsShow(team: string, options: AdminClientOptions): Promise<number> {
  return printTeamAnswer(await callAdmin('GET', teamPath(team), options), 200, options);
}

/** `switchyard teams update TEAM …`: changes the fields given (a limit or an exploration option alone leaves the others), clears those `--clear` names. */
export async function runTeamsUpdate(team: string, options: TeamsUpdateOptions): Promise<number> {
  const body = teamBody(options);
  if (typeof body === 'string') return fail(body);
  for (const field of options.clear?.split(',').map((name) => name.trim()) ?? []) {
    if (!(CLEARABLE as readonly string[]).includes(field)) return fail(`--clear takes comma-separated fields among ${CLEARABLE.join(', ')} (got "${field}")`);
    if (body[field] !== undefined) return fail(`--clear ${field} and an option setting ${field} contradict each other`);
    body[field] = null;
  }
  if (Object.keys(body).length === 0) return fail('nothing to change: give an option to set, or --clear');
  return printTeamAnswer(await callAdmin('PATCH', teamPath(team), options, body), 200, options);
}

/** `switchyard teams delete TEAM`: refused while the team has active keys. */
export async function runTeamsDelete(team: string, options: AdminClientOptions): Promise<number> {
  const answer = await callAdmin('DELETE', teamPath(team), options);
  if (!answer.ok) return fail(answer.error);
  if (answer.status !== 200) return fail(`the gateway answered ${answer.status}: ${errorMessage(answer.text)}`);
  console.log(`deleted team ${team}`);
  return 0;
}

/** `switchyard teams spend TEAM`: spent in the team's current budget period, and held by requests in flight. */
export async function runTeamsSpend(team: string, options: AdminClientOptions): Promise<number> {
  const answer = await callAdmin('GET', `${teamPath(team)}/spend`, options);
  if (!answer.ok) return fail(answer.error);
  if (answer.status !== 200) return fail(`the gateway answered ${answer.status}: ${errorMessage(answer.text)}`);
  const spend = JSON.parse(answer.text) as TeamSpendView;
  const budget = spend.budget_usd === null || spend.period === null ? 'no budget' : `of ${budgetText({ usd: spend.budget_usd, period: spend.period })}`;
  console.log(
    labelled([
      ['team', spend.team_id],
      ['spent', `${usdText(spend.usd)} ${budget}`],
      ['reserved', usdText(spend.reserved_usd)],
      ['since', spend.period_start],
    ]),
  );
  return 0;
}

function teamPath(team: string): string {
  return `/admin/teams/${encodeURIComponent(team)}`;
}

async function printTeamAnswer(answer: Awaited<ReturnType<typeof callAdmin>>, expected: number, options: AdminClientOptions): Promise<number> {
  if (!answer.ok) return fail(answer.error);
  if (answer.status === 404) return fail(`${errorMessage(answer.text)} (at ${options.url})`);
  if (answer.status !== expected) return fail(`the gateway answered ${answer.status}: ${errorMessage(answer.text)}`);
  const team = JSON.parse(answer.text) as TeamView;
  console.log(
    labelled([
      ['id', team.id],
      ['name', team.name],
      ['budget', budgetText(team.budget)],
      ['limits', `rpm ${team.limits.rpm ?? '-'}, tpm ${team.limits.tpm ?? '-'}`],
      ['routes', routesText(team.routes)],
      ['exploration', explorationText(team.exploration)],
      ['created', team.created_at],
      ['updated', team.updated_at],
    ]),
  );
  return 0;
}

/** The body of a create or a PATCH: the fields the options give; or a message saying which option is wrong. */
function teamBody(options: TeamOptions): Record<string, unknown> | string {
  const own = limitFields(options);
  if (typeof own === 'string') return own;
  const body: Record<string, unknown> = { ...own };
  if (options.name !== undefined) body.name = options.name;
  const explorationLimits = limitFields(
    { rpm: options.explorationRpm, tpm: options.explorationTpm, budgetUsd: options.explorationBudgetUsd, budgetPeriod: options.explorationBudgetPeriod },
    'exploration-',
  );
  if (typeof explorationLimits === 'string') return explorationLimits;
  const exploration: Record<string, unknown> = { ...explorationLimits };
  if (options.explorationMaxTtlS !== undefined) {
    if (!/^\d+$/.test(options.explorationMaxTtlS) || Number(options.explorationMaxTtlS) < 1) {
      return `--exploration-max-ttl-s must be a whole number of seconds above 0 (got "${options.explorationMaxTtlS}")`;
    }
    exploration.max_ttl_s = Number(options.explorationMaxTtlS);
  }
  if (Object.keys(exploration).length > 0) body.exploration = exploration;
  return body;
}

function explorationText(policy: TeamView['exploration']): string {
  const parts = [`keys live ${durationText(policy.max_ttl_s)}`];
  if (policy.limits.rpm !== null) parts.push(`rpm ${policy.limits.rpm}`);
  if (policy.limits.tpm !== null) parts.push(`tpm ${policy.limits.tpm}`);
  if (policy.budget !== null) parts.push(budgetText(policy.budget));
  return parts.join(', ');
}

function usdText(usd: number): string {
  return `$${usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 })}`;
}
