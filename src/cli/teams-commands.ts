import type { Command } from 'commander';
import type { AdminClientOptions } from './admin-client.js';
import type { TeamOptions, TeamsUpdateOptions } from './teams.js';

/** The options a team is made or changed with: its own budget, limits and route bounds, and its exploration policy. */
function withTeamFields(command: Command): Command {
  return command
    .option('--routes <globs>', "comma-separated route globs bounding the team's keys' routes (default: every route)")
    .option('--budget-usd <usd>', "spend limit across the team's keys, in US dollars per --budget-period")
    .option('--budget-period <period>', 'budget period: day, month or total')
    .option('--rpm <count>', "requests per minute across the team's keys")
    .option('--tpm <count>', "tokens per minute across the team's keys")
    .option('--exploration-max-ttl-s <seconds>', 'the longest an exploration key lives, and how long one made without --expires-at does (default: 7 days)')
    .option('--exploration-rpm <count>', "an exploration key's requests per minute at most (and its own when it asks for none)")
    .option('--exploration-tpm <count>', "an exploration key's tokens per minute at most")
    .option('--exploration-budget-usd <usd>', "an exploration key's budget at most, in US dollars per --exploration-budget-period")
    .option('--exploration-budget-period <period>', "an exploration key's budget period: day, month or total");
}

/**
 * `switchyard teams create|list|show|update|delete|spend`, through the admin API. A team is named
 * by its id or its name.
 */
export function addTeamsCommands(program: Command, adminOptions: (command: Command) => Command): void {
  const teams = program.command('teams').description("manage teams (their budgets, limits, route bounds and exploration policy) through the admin API");
  adminOptions(
    withTeamFields(teams.command('create').description('create a team and print it; exit 1 on failure').requiredOption('--name <name>', 'a unique name (letters, digits, spaces, ".", "_", "-")')),
  ).action(async (options: TeamOptions) => {
    process.exitCode = await (await import('./teams.js')).runTeamsCreate(options);
  });
  adminOptions(teams.command('list').description('list the teams the token may see; exit 1 on failure')).action(async (options: AdminClientOptions) => {
    process.exitCode = await (await import('./teams.js')).runTeamsList(options);
  });
  adminOptions(teams.command('show').description('print one team; exit 1 on failure').argument('<team>', 'team id (team_…) or name')).action(
    async (team: string, options: AdminClientOptions) => {
      process.exitCode = await (await import('./teams.js')).runTeamsShow(team, options);
    },
  );
  adminOptions(
    withTeamFields(
      teams
        .command('update')
        .description('change a team: the options given, a limit or exploration option leaving the others as they are; exit 1 on failure')
        .argument('<team>', 'team id (team_…) or name')
        .option('--name <name>', 'a new unique name')
        .option('--clear <fields>', 'comma-separated fields to clear: budget, limits, routes, exploration (back to the defaults)'),
    ),
  ).action(async (team: string, options: TeamsUpdateOptions) => {
    process.exitCode = await (await import('./teams.js')).runTeamsUpdate(team, options);
  });
  adminOptions(teams.command('delete').description('delete a team that has no active keys; exit 1 on failure').argument('<team>', 'team id (team_…) or name')).action(
    async (team: string, options: AdminClientOptions) => {
      process.exitCode = await (await import('./teams.js')).runTeamsDelete(team, options);
    },
  );
  adminOptions(
    teams.command('spend').description("print what the team's keys spent in its budget period; exit 1 on failure").argument('<team>', 'team id (team_…) or name'),
  ).action(async (team: string, options: AdminClientOptions) => {
    process.exitCode = await (await import('./teams.js')).runTeamsSpend(team, options);
  });
}
