import type { IncomingMessage } from 'node:http';
import type { AdminAccessDeps } from '../access/admin-access.js';
import type { Config } from '../config/schema.js';
import { carriesSessionCsrfToken, sessionOf } from './sign-in-session.js';

/** How the admin API recognises a signed-in person: by the session cookie, checked against the config in force. */
export function sessionAccess(config: () => Config, nowMs: () => number): Required<Pick<AdminAccessDeps, 'sessionActor' | 'carriesCsrfToken' | 'signInConfigured'>> {
  const session = (request: IncomingMessage) => {
    const oidc = config().admin.oidc;
    return oidc && sessionOf(request, oidc.client_secret, nowMs());
  };
  return {
    sessionActor: (request) => session(request)?.actor,
    carriesCsrfToken: (request) => {
      const live = session(request);
      return live !== undefined && carriesSessionCsrfToken(request, live);
    },
    signInConfigured: () => config().admin.oidc !== undefined,
  };
}
