import type { Logger } from 'pino';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { Config } from '../config/schema.js';
import type { IdentityProvider } from './identity-provider.js';
import type { FindTeam } from './map-role-claim.js';
import type { SignInPage } from './sign-in-page.js';

/** What the sign-in's handlers read and write. */
export interface SignInDeps {
  config(): Config;
  provider: IdentityProvider;
  findTeam: FindTeam;
  audit: Pick<AuditTrail, 'event'>;
  logger: Logger;
  nowMs(): number;
}

export const NOT_CONFIGURED: SignInPage = {
  title: 'Sign-in through an identity provider is not set up',
  paragraphs: ['This gateway has no admin.oidc in its config. Sign in with the admin token.'],
};
