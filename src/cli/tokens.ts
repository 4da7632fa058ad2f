import type { AdminTokenView } from '../tokens/admin-token.js';
import { callAdmin, errorMessage, type AdminClientOptions } from './admin-client.js';
import { formatTable } from './format-table.js';
import { fail, labelled } from './keys.js';

export interface TokensCreateOptions extends AdminClientOptions {
  name: string;
  role: string;
  /** The team's id or name, for `team_admin` and `member`. */
  team?: string;
  expiresAt?: string;
}

/** `switchyard tokens create`: prints the new admin token once; the gateway checks the role and team. */
export async function runTokensCreate(options: TokensCreateOptions): Promise<number> {
  const body: Record<string, unknown> = { name: options.name, role: options.role };
  if (options.team !== undefined) body.team = options.team;
  if (options.expiresAt !== undefined) body.expires_at = options.expiresAt;
  const answer = await callAdmin('POST', '/admin/tokens', options, body);
  if (!answer.ok) return fail(answer.error);
  if (answer.status !== 201) return fail(`the gateway answered ${answer.status}: ${errorMessage(answer.text)}`);
  const created = JSON.parse(answer.text) as Pick<AdminTokenView, 'id' | 'name' | 'role' | 'team' | 'expires_at'> & { token: string };
  console.log(
    labelled([
      ['id', created.id],
      ['name', created.name],
      ['role', created.role],
      ['team', created.team ?? 'every team'],
      ['expires', created.expires_at ?? 'never'],
    ]),
  );
  console.log(`\n    ${created.token}\n`);
  console.log('Copy this token now: it will not be shown again (the gateway keeps only its hash).');
  return 0;
}

/** `switchyard tokens list`: one row per admin token, never a secret. */
export async function runTokensList(options: AdminClientOptions): Promise<number> {
  const answer = await callAdmin('GET', '/admin/tokens', options);
  if (!answer.ok) return fail(answer.error);
  if (answer.status !== 200) return fail(`the gateway answered ${answer.status}: ${errorMessage(answer.text)}`);
  const tokens = (JSON.parse(answer.text) as { data: AdminTokenView[] }).data;
  if (tokens.length === 0) {
    console.log('no admin tokens yet; create one with `switchyard tokens create --name NAME --role ROLE`');
    return 0;
  }
  console.log(
    formatTable(
      ['id', 'name', 'prefix', 'role', 'team', 'status', 'expires', 'created'],
      tokens.map((token) => [token.id, token.name, token.token_prefix, token.role, token.team ?? '-', token.status, token.expires_at ?? 'never', token.created_at]),
    ),
  );
  return 0;
}

/** `switchyard tokens revoke ID`: refused from the next request on, on every replica. */
export async function runTokensRevoke(id: string, options: AdminClientOptions): Promise<number> {
  const answer = await callAdmin('DELETE', `/admin/tokens/${encodeURIComponent(id)}`, options);
  if (!answer.ok) return fail(answer.error);
  if (answer.status === 404) return fail(`no admin token with id ${id} at ${options.url}`);
  if (answer.status !== 200) return fail(`the gateway answered ${answer.status}: ${errorMessage(answer.text)}`);
  console.log(`revoked ${id}: admin requests with this token now get 401`);
  return 0;
}
