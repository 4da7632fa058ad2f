import type { Logger } from 'pino';
import type { AdminAccessDeps } from '../access/admin-access.js';
import type { Config } from '../config/schema.js';
import { IdentityProvider } from '../signin/identity-provider.js';
import { sessionAccess } from '../signin/session-access.js';
import type { SignInDeps } from '../signin/sign-in-deps.js';
import { TeamStore } from '../teams/team-store.js';
import type { Storage } from './storage.js';

export interface SignIn {
  /** What the sign-in's routes are handed. */
  handlers: SignInDeps;
  /** How the admin API recognises the people it signed in. */
  access: Pick<AdminAccessDeps, 'sessionActor' | 'carriesCsrfToken' | 'signInConfigured'>;
}

/** Sign-in through the identity provider `admin.oidc` names: its routes' dependencies and the admin API's side of it. */
export function buildSignIn(deps: { config: () => Config; storage: Storage; logger: Logger }): SignIn {
  const teams = new TeamStore(deps.storage.db);
  return {
    handlers: {
      config: deps.config,
      provider: new IdentityProvider(),
      findTeam: (idOrName) => teams.find(idOrName),
      audit: deps.storage.audit,
      logger: deps.logger,
      nowMs: Date.now,
    },
    access: sessionAccess(deps.config, Date.now),
  };
}
