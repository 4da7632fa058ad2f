import type { CreatedKeyView, KeyView } from '../keys/key-view.js';
import { BUDGET_PERIODS } from '../keys/virtual-key.js';
import { formatTable } from './format-table.js';
import { callAdmin, errorMessage, type AdminClientOptions } from './admin-client.js';

export type { AdminClientOptions };

/** The routes, budget and limits options a key and a team share, as commander hands them over. */
export interface LimitOptions {
  /** Comma-separated route globs. */
  routes?: string;
  budgetUsd?: string;
  budgetPeriod?: string;
  rpm?: string;
  tpm?: string;
}

/** The options that set a key's fields, on create and on update. */
export interface KeyFieldOptions extends AdminClientOptions, LimitOptions {
  name?: string;
  expiresAt?: string;
}

/** Option values as commander hands them over: text, checked here so every mistake gets one clear line. */
export interface KeysCreateOptions extends KeyFieldOptions {
  name: string;
  /** The team's id or name. */
  team?: string;
  /** `service` (the gateway's default) or `exploration`. */
  kind?: string;
}


/** `switchyard keys create`: prints the new key once; returns the exit code. */
export async function runKeysCreate(options: KeysCreateOptions): Promise<number> {
  const body = createBody(options);
  if (typeof body === 'string') {
    console.error(body);
    return 1;
  }
  const answer = await callAdmin('POST', '/admin/keys', options, body);
  if (!answer.ok) return fail(answer.error);
  if (answer.status !== 201) return fail(`the gateway answered ${answer.status}: ${errorMessage(answer.text)}`);
  const created = JSON.parse(answer.text) as CreatedKeyView;
  console.log(
    labelled(keyLines(created)),
  );
  console.log(`\n    ${created.key}\n`);
  console.log('Copy this key now: it will not be shown again (the gateway keeps only its hash).');
  return 0;
}

/** `switchyard keys list`: one aligned row per key, never a secret (the API has none to give). */
export async function runKeysList(options: AdminClientOptions): Promise<number> {
  const answer = await callAdmin('GET', '/admin/keys', options);
  if (!answer.ok) return fail(answer.error);
  if (answer.status !== 200) return fail(`the gateway answered ${answer.status}: ${errorMessage(answer.text)}`);
  const keys = (JSON.parse(answer.text) as { data: KeyView[] }).data;
  if (keys.length === 0) {
    console.log('no keys yet; create one with `switchyard keys create --name NAME`');
    return 0;
  }
  console.log(
    formatTable(
      ['id', 'name', 'prefix', 'status', 'kind', 'team', 'routes', 'budget', 'rpm', 'tpm', 'expires', 'created'],
      keys.map((key) => [
        key.id,
        key.name,
        key.key_prefix,
        key.status,
        key.kind,
        key.team ?? '-',
        routesText(key.routes),
        budgetText(key.budget),
        key.limits.rpm === null ? '-' : String(key.limits.rpm),
        key.limits.tpm === null ? '-' : String(key.limits.tpm),
        key.expires_at ?? 'never',
        key.created_at,
      ]),
    ),
  );
  return 0;
}

/** `switchyard keys revoke ID`: effective at once on the gateway that answers. */
export async function runKeysRevoke(id: string, options: AdminClientOptions): Promise<number> {
  const answer = await callAdmin('DELETE', `/admin/keys/${encodeURIComponent(id)}`, options);
  if (!answer.ok) return fail(answer.error);
  if (answer.status === 404) return fail(`no key with id ${id} at ${options.url}`);
  if (answer.status !== 200) return fail(`the gateway answered ${answer.status}: ${errorMessage(answer.text)}`);
  console.log(`revoked ${id}: requests with this key now get 401`);
  return 0;
}

/** The POST body, or a message saying which option is wrong. */
function createBody(options: KeysCreateOptions): Record<string, unknown> | string {
  const body = keyFieldsBody(options);
  if (typeof body === 'string') return body;
  if (options.team !== undefined) body.team = options.team;
  if (options.kind !== undefined) body.kind = options.kind;
  return body;
}

/** The fields of a create or an update the options set, or a message saying which option is wrong. */
export function keyFieldsBody(options: KeyFieldOptions): Record<string, unknown> | string {
  const limits = limitFields(options);
  if (typeof limits === 'string') return limits;
  const body: Record<string, unknown> = { ...(options.name === undefined ? {} : { name: options.name }), ...limits };
  if (options.expiresAt !== undefined) body.expires_at = options.expiresAt;
  return body;
}

/**
 * `routes`, `budget` and `limits` of a key's or a team's body, those the options give; or a
 * message saying which option is wrong, its flag spelt with `prefix` (`--exploration-rpm`).
 */
export function limitFields(options: LimitOptions, prefix = ''): Record<string, unknown> | string {
  const body: Record<string, unknown> = {};
  if (options.routes !== undefined) {
    const routes = options.routes.split(',').map((glob) => glob.trim());
    if (routes.some((glob) => glob === '')) return `--${prefix}routes takes comma-separated route globs, none of them empty (e.g. "support-*,openai-prod/*")`;
    body.routes = routes;
  }
  if ((options.budgetUsd === undefined) !== (options.budgetPeriod === undefined)) {
    return `--${prefix}budget-usd and --${prefix}budget-period go together (period: ${BUDGET_PERIODS.join(', ')})`;
  }
  if (options.budgetUsd !== undefined) {
    const usd = Number(options.budgetUsd);
    if (options.budgetUsd.trim() === '' || !(usd > 0)) return `--${prefix}budget-usd must be an amount of US dollars above 0 (got "${options.budgetUsd}")`;
    body.budget = { usd, period: options.budgetPeriod };
  }
  const limits: Record<string, number> = {};
  for (const [flag, value] of [['rpm', options.rpm], ['tpm', options.tpm]] as const) {
    if (value === undefined) continue;
    if (!/^\d+$/.test(value) || Number(value) < 1) return `--${prefix}${flag} must be a whole number above 0 (got "${value}")`;
    limits[flag] = Number(value);
  }
  if (Object.keys(limits).length > 0) body.limits = limits;
  return body;
}

/** A key's fields, a line each, as `keys create` and `keys update` print them. */
export function keyLines(key: Pick<KeyView, 'id' | 'name' | 'kind' | 'team' | 'routes' | 'budget' | 'limits' | 'expires_at'>): [string, string][] {
  return [
    ['id', key.id],
    ['name', key.name],
    ['kind', key.kind],
    ['team', key.team ?? '-'],
    ['routes', routesText(key.routes)],
    ['budget', budgetText(key.budget)],
    ['limits', `rpm ${key.limits.rpm ?? '-'}, tpm ${key.limits.tpm ?? '-'}`],
    ['expires', key.expires_at ?? 'never'],
  ];
}

export function fail(message: string): number {
  console.error(message);
  return 1;
}

export function labelled(rows: readonly [string, string][]): string {
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n');
}

export function routesText(routes: readonly string[] | null): string {
  return routes === null ? 'all' : routes.join(',');
}

export function budgetText(budget: KeyView['budget']): string {
  if (budget === null) return '-';
  const usd = budget.usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 });
  return `$${usd} / ${budget.period}`;
}


