import { z } from 'zod';
import { isLoopback } from './is-loopback.js';

/**
 * The scopes asked for when `scopes` is not set: what names the person. Nothing an identity
 * provider may not know is in it (Google refuses a sign-in that asks for an unknown scope); one
 * that sends the role claim only for a scope of its own (Okta's `groups`) is given it in `scopes`.
 */
export const DEFAULT_OIDC_SCOPES: readonly string[] = ['openid', 'profile', 'email'];

const ROLE_EXPECTED = 'expected admin, auditor, { team_admin: <team> } or { member: <team> }';
const TEAM_EXPECTED = 'a team, by its id or its name';

/** What one value of the role claim grants: a role over every team, or a role in one team (by id or name). */
const mappedRoleSchema = z.union(
  [
    z.enum(['admin', 'auditor']),
    z.object({ team_admin: z.string({ error: TEAM_EXPECTED }).min(1, TEAM_EXPECTED) }).strict(),
    z.object({ member: z.string({ error: TEAM_EXPECTED }).min(1, TEAM_EXPECTED) }).strict(),
  ],
  { error: ROLE_EXPECTED },
);

/**
 * An http:// issuer only on loopback, where local and test identity providers run: elsewhere the
 * client secret and the tokens would cross the network readable. Checked on the field itself, so
 * that it is reported beside every other error of the block.
 */
function refuseHttpOffLoopback(issuer: string, context: z.RefinementCtx): void {
  const { protocol, hostname } = new URL(issuer);
  if (protocol !== 'http:' || isLoopback(hostname)) return;
  context.addIssue({
    code: 'custom',
    message: `an http:// issuer is only allowed on loopback (127.0.0.1, ::1, localhost), not on ${hostname}: the client secret and the tokens would cross the network unencrypted; use https://`,
  });
}

/**
 * `admin.oidc`: sign-in to the dashboard through the company's identity provider (SPEC §15,
 * docs/teams-and-access.md). The issuer is reached over https, or over http on this machine only.
 */
export const adminOidcSchema = z
  .object({
    issuer: z.url({ protocol: /^https?$/, error: 'the issuer URL, https://…' }).superRefine(refuseHttpOffLoopback),
    client_id: z.string().min(1),
    /** Also the key the gateway's sign-in cookies are signed with (docs/teams-and-access.md). */
    client_secret: z.string().min(1),
    scopes: z
      .array(z.string().regex(/^\S+$/, 'one scope per entry, without spaces'))
      .refine((scopes) => scopes.includes('openid'), 'must include openid: it is what makes the sign-in OpenID Connect')
      .default([...DEFAULT_OIDC_SCOPES]),
    /** The claim (of the ID token, else of userinfo) whose values `roles` maps: a string or a list of strings. */
    role_claim: z.string().min(1).default('groups'),
    roles: z.record(z.string().min(1), mappedRoleSchema).refine((roles) => Object.keys(roles).length > 0, 'map at least one value of the role claim to a role'),
  })
  .strict();

export type AdminOidcConfig = z.infer<typeof adminOidcSchema>;
export type MappedRole = z.infer<typeof mappedRoleSchema>;
