#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import type { CanaryOptions } from './canary.js';
import type { DrillOptions } from './drill.js';
import type { KeysRotateOptions, KeysUpdateOptions } from './keys-change.js';
import type { AuditExportOptions, AuditListOptions } from './audit.js';
import type { AdminClientOptions, KeysCreateOptions } from './keys.js';
import type { RequestsListOptions } from './requests-list.js';
import type { TokensCreateOptions } from './tokens.js';
import { addTeamsCommands } from './teams-commands.js';

// Each command's module is imported by its action, not here: `serve` and `demo` pull in the whole
// gateway (the tokenizer's rank tables, the store drivers, OpenTelemetry), which `--version`, `--help`
// and the admin commands never use and would otherwise wait for on every start.

function port(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65_535) throw new InvalidArgumentError('a port is a whole number from 0 to 65535');
  return parsed;
}

/** Where the admin commands' token comes from, for --help (never the token itself). */
const TOKEN_HELP = 'admin token (default: $SWITCHYARD_ADMIN_TOKEN, else the file .switchyard/admin-token)';

/** The version of the package this CLI was built from (dist/src/cli/main.js → the package root). */
function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

const program = new Command()
  .name('switchyard')
  .description('A self-hosted, OpenAI-compatible LLM gateway built for reliability')
  .version(packageVersion(), '-V, --version', 'print the version')
  .showHelpAfterError();

program
  .command('serve')
  .description('run the gateway')
  .requiredOption('-c, --config <file>', 'config file (YAML)')
  .option('-p, --port <port>', 'listen port (overrides server.port)', port)
  .option('-H, --host <host>', 'listen address (overrides server.host)')
  .action(async (options: { config: string; port?: number; host?: string }) => (await import('./serve.js')).runServe(options));

program
  .command('check-config')
  .description('validate a config file; prints every error with its YAML path; exit 1 on error')
  .argument('<file>', 'config file (YAML)')
  .action(async (file: string) => {
    process.exitCode = (await import('./check-config.js')).runCheckConfig(file);
  });

program
  .command('rehearse')
  .description("play the config's routes against every fault, every target served by the mock (no provider is called); exit 1 when a verdict failed, 2 when it could not run")
  .requiredOption('-c, --config <file>', 'config file (YAML)')
  .option('--route <routes>', 'only these routes, comma-separated')
  .option('--fault <faults>', 'only these faults, comma-separated')
  .option('--json', 'print the whole result as JSON instead of tables')
  .option('--max-wait <seconds>', 'the first-byte goal', Number, 10)
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
  .action(async (options: { config: string; route?: string; fault?: string; json?: boolean; maxWait: number }) => {
    process.exitCode = await (await import('./rehearse.js')).runRehearse(options);
  });

program
  .command('migrate')
  .description("create or upgrade the store's schema (serve does this on start too); exit 1 on failure")
  .requiredOption('-c, --config <file>', 'config file (YAML)')
  .action(async (options: { config: string }) => {
    process.exitCode = await (await import('./migrate.js')).runMigrate(options);
  });

program
  .command('mock')
  .description('run the built-in fault-injecting mock provider')
  .option('-p, --port <port>', 'listen port', port, 4010)
  .option('-H, --host <host>', 'listen address', '127.0.0.1')
  .option('--reject-key <key>', "answer requests presenting this key with the provider's credential error (repeatable)", (key: string, keys: string[]) => [...keys, key], [])
  .action(async (options: { port: number; host: string; rejectKey: string[] }) => (await import('./mock.js')).runMock(options));

program
  .command('demo')
  .description('start a gateway and mock providers, send sample traffic and show a failover')
  .option('-n, --requests <count>', 'requests per route', (value) => Math.max(1, Math.min(50, Number(value) || 3)), 3)
  .action(async (options: { requests: number }) => (await import('./demo.js')).runDemo(options));

program
  .command('canary')
  .description('run the quality canaries now and print their scores; exit 1 when a run dropped below its threshold')
  .option('--route <route>', 'only the canary of this route')
  .option('--json', 'print the runs as JSON instead of a table')
  .option('--url <url>', 'gateway URL', 'http://127.0.0.1:4000')
  .option('--token <token>', TOKEN_HELP)
  .action(async (options: CanaryOptions) => {
    process.exitCode = await (await import('./canary.js')).runCanaryCommand(options);
  });

const keys = program.command('keys').description('manage virtual keys through the admin API');
keys
  .command('create')
  .description('create a virtual key and print it (it is shown this once); exit 1 on failure')
  .requiredOption('--name <name>', 'a name for the key, shown in listings and request records')
  .option('--routes <globs>', 'comma-separated route globs the key may use, e.g. "support-*,openai-prod/*" (default: every route)')
  .option('--budget-usd <usd>', 'spend limit in US dollars per --budget-period')
  .option('--budget-period <period>', 'budget period: day, month or total')
  .option('--rpm <count>', 'requests per minute')
  .option('--tpm <count>', 'tokens per minute')
  .option('--expires-at <time>', 'expiry, ISO 8601 with a zone, e.g. 2030-01-31T00:00:00Z (default: never; an exploration key: its team\'s max_ttl_s)')
  .option('--team <team>', 'the team the key belongs to (its id or name)')
  .option('--kind <kind>', 'service (the default) or exploration (yours, within the team\'s exploration policy)')
  .option('--url <url>', 'gateway URL', 'http://127.0.0.1:4000')
  .option('--token <token>', TOKEN_HELP)
  .action(async (options: KeysCreateOptions) => {
    process.exitCode = await (await import('./keys.js')).runKeysCreate(options);
  });
keys
  .command('list')
  .description('list virtual keys (never their secrets); exit 1 on failure')
  .option('--url <url>', 'gateway URL', 'http://127.0.0.1:4000')
  .option('--token <token>', TOKEN_HELP)
  .action(async (options: AdminClientOptions) => {
    process.exitCode = await (await import('./keys.js')).runKeysList(options);
  });
keys
  .command('revoke')
  .description('revoke a virtual key, effective at once; exit 1 on failure')
  .argument('<id>', 'key id (key_…), as `keys list` shows it')
  .option('--url <url>', 'gateway URL', 'http://127.0.0.1:4000')
  .option('--token <token>', TOKEN_HELP)
  .action(async (id: string, options: AdminClientOptions) => {
    process.exitCode = await (await import('./keys.js')).runKeysRevoke(id, options);
  });

keys
  .command('rotate')
  .description('give a key a new secret (printed this once); the old one keeps working for --overlap-s; exit 1 on failure')
  .argument('<id>', 'key id (key_…), as `keys list` shows it')
  .option('--overlap-s <seconds>', 'how long the old secret keeps working (default 3600; 0: it stops at once)')
  .option('--url <url>', 'gateway URL', 'http://127.0.0.1:4000')
  .option('--token <token>', TOKEN_HELP)
  .action(async (id: string, options: KeysRotateOptions) => {
    process.exitCode = await (await import('./keys-change.js')).runKeysRotate(id, options);
  });
keys
  .command('update')
  .description('change a key, in force on its next request; exit 1 on failure')
  .argument('<id>', 'key id (key_…), as `keys list` shows it')
  .option('--name <name>', 'a new name')
  .option('--routes <globs>', 'comma-separated route globs the key may use')
  .option('--budget-usd <usd>', 'spend limit in US dollars per --budget-period')
  .option('--budget-period <period>', 'budget period: day, month or total')
  .option('--rpm <count>', 'requests per minute')
  .option('--tpm <count>', 'tokens per minute')
  .option('--expires-at <time>', 'expiry, ISO 8601 with a zone, e.g. 2030-01-31T00:00:00Z')
  .option('--direct', 'may name connection/model directly')
  .option('--no-direct', 'may only use the configured routes')
  .option('--clear <fields>', 'comma-separated fields to clear: routes (every route), budget, limits, expires_at (never)')
  .option('--url <url>', 'gateway URL', 'http://127.0.0.1:4000')
  .option('--token <token>', TOKEN_HELP)
  .action(async (id: string, options: KeysUpdateOptions) => {
    process.exitCode = await (await import('./keys-change.js')).runKeysUpdate(id, options);
  });

const tokens = program.command('tokens').description('manage scoped admin API tokens through the admin API');
tokens
  .command('create')
  .description('create an admin API token and print it (it is shown this once); exit 1 on failure')
  .requiredOption('--name <name>', 'a name for the token, shown in listings and the audit trail')
  .requiredOption('--role <role>', 'admin, auditor, team_admin or member')
  .option('--team <team>', 'the team (id or name) a team_admin or member token acts for')
  .option('--expires-at <time>', 'expiry, ISO 8601 with a zone, e.g. 2030-01-31T00:00:00Z (default: never)')
  .option('--url <url>', 'gateway URL', 'http://127.0.0.1:4000')
  .option('--token <token>', TOKEN_HELP)
  .action(async (options: TokensCreateOptions) => {
    process.exitCode = await (await import('./tokens.js')).runTokensCreate(options);
  });
tokens
  .command('list')
  .description('list admin API tokens (never their secrets); exit 1 on failure')
  .option('--url <url>', 'gateway URL', 'http://127.0.0.1:4000')
  .option('--token <token>', TOKEN_HELP)
  .action(async (options: AdminClientOptions) => {
    process.exitCode = await (await import('./tokens.js')).runTokensList(options);
  });
tokens
  .command('revoke')
  .description('revoke an admin API token, refused from its next request on; exit 1 on failure')
  .argument('<id>', 'token id (tok_…), as `tokens list` shows it')
  .option('--url <url>', 'gateway URL', 'http://127.0.0.1:4000')
  .option('--token <token>', TOKEN_HELP)
  .action(async (id: string, options: AdminClientOptions) => {
    process.exitCode = await (await import('./tokens.js')).runTokensRevoke(id, options);
  });
addTeamsCommands(program, (command) => command.option('--url <url>', 'gateway URL', 'http://127.0.0.1:4000').option('--token <token>', TOKEN_HELP));

const requests = program.command('requests').description('inspect request records through the admin API');
requests
  .command('show')
  .description('print one request and every attempt as a timeline; exit 1 on failure')
  .argument('<id>', 'request id (the x-request-id response header)')
  .option('--url <url>', 'gateway URL', 'http://127.0.0.1:4000')
  .option('--token <token>', TOKEN_HELP)
  .action(async (id: string, options: AdminClientOptions) => {
    process.exitCode = await (await import('./requests-show.js')).runRequestsShow(id, options);
  });
requests
  .command('list')
  .description('list request records, newest first, one line each; exit 1 on failure')
  .option('--route <route>', 'only this route')
  .option('--status <status>', 'only this outcome: ok, interrupted, failed, rejected or cancelled')
  .option('--origin <origin>', "whose requests: caller (the default), the gateway's own drill, canary or probe, or all")
  .option('--key <name>', 'only the requests of the key with this name')
  .option('--team <team>', "only the requests of this team's keys (its id or name)")
  .option('--before <id>', 'only requests older than this one (the last id of the previous page)')
  .option('--limit <count>', 'at most this many (1 to 1000)', '20')
  .option('--url <url>', 'gateway URL', 'http://127.0.0.1:4000')
  .option('--token <token>', TOKEN_HELP)
  .action(async (options: RequestsListOptions) => {
    process.exitCode = await (await import('./requests-list.js')).runRequestsList(options);
  });

const audit = program.command('audit').description('read and check the audit trail through the admin API (roles admin and auditor)');
audit
  .command('list')
  .description('list audit rows, newest first, one line each; exit 1 on failure')
  .option('--since <time>', 'only rows at or after this time (ISO 8601 or epoch milliseconds)')
  .option('--until <time>', 'only rows before this time')
  .option('--actor <id>', "only this actor's rows (admin.token, a token's tok_… id, a person's sub, or gateway)")
  .option('--action <action>', 'only this action, e.g. key.revoke or config.reload')
  .option('--target <id>', "only rows about this target's id (key_…, team_…, a run's id)")
  .option('--before <seq>', 'only rows older than this seq (the last seq of the previous page)')
  .option('--limit <count>', 'at most this many (1 to 1000)', '20')
  .option('--url <url>', 'gateway URL', 'http://127.0.0.1:4000')
  .option('--token <token>', TOKEN_HELP)
  .action(async (options: AuditListOptions) => {
    process.exitCode = await (await import('./audit.js')).runAuditList(options);
  });
audit
  .command('export')
  .description('print every audit row, oldest first, one JSON document a line; exit 1 on failure')
  .option('--format <format>', 'jsonl (the only format)', 'jsonl')
  .option('--url <url>', 'gateway URL', 'http://127.0.0.1:4000')
  .option('--token <token>', TOKEN_HELP)
  .action(async (options: AuditExportOptions) => {
    process.exitCode = await (await import('./audit.js')).runAuditExport(options);
  });
audit
  .command('verify')
  .description("check the audit trail's hash chain from its first row; exit 1 naming the first row that breaks it, 2 when the trail could not be read")
  .option('--url <url>', 'gateway URL', 'http://127.0.0.1:4000')
  .option('--token <token>', TOKEN_HELP)
  .action(async (options: AdminClientOptions) => {
    process.exitCode = await (await import('./audit.js')).runAuditVerify(options);
  });

program
  .command('drill')
  .description('run the fallback drill on a running gateway: every target alone, then each fallback step; exit 1 when a step failed, 2 when the drill could not run')
  .option('--route <route>', 'only this route (even one drills.routes leaves out)')
  .option('--json', 'print the run as JSON instead of a table')
  .option('--url <url>', 'gateway URL', 'http://127.0.0.1:4000')
  .option('--token <token>', TOKEN_HELP)
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
  .action(async (options: DrillOptions) => {
    process.exitCode = await (await import('./drill.js')).runDrill(options);
  });

await program.parseAsync();
