/**
 * A real OpenID provider for the sign-in tests: `oidc-provider` in this process, on 127.0.0.1,
 * with one confidential client (PKCE required) and people who sign in by their login alone. Its
 * sign-in page is the test's own (a username field and a button, nothing fetched from elsewhere):
 * the library's development pages load a web font from the internet. Consent is given with the
 * sign-in.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration } from 'oidc-provider';

export const IDP_CLIENT_ID = 'switchyard-dashboard';
/** Long and unlike anything else, so a test can look for it in the store and the logs. */
export const IDP_CLIENT_SECRET = 'idp-client-secret-7c1f0e9a52d84b36a0e1';

/** A person at the identity provider, by login. */
export interface IdentityProviderPerson {
  name: string;
  email: string;
  groups: string[];
}

export interface TestIdentityProvider {
  issuer: string;
  /**
   * Registers the gateway's callback URL with the client (an identity provider only sends the
   * browser back to a URL it knows); the first call starts the provider.
   */
  allowCallback(callbackUrl: string): void;
  close(): Promise<void>;
}

export interface IdentityProviderOptions {
  people: Readonly<Record<string, IdentityProviderPerson>>;
  /** Default: any free one. */
  port?: number;
  /** Where the `groups` claim is sent: in the ID token (default), or only from userinfo. */
  groupsIn?: 'id_token' | 'userinfo';
}

export async function startIdentityProvider(options: IdentityProviderOptions): Promise<TestIdentityProvider> {
  let provider: Provider | undefined;
  const callbacks: string[] = [];
  const server = createServer((request, response) => {
    if (!provider) {
      response.writeHead(503).end('no client registered yet');
      return;
    }
    const interaction = /^\/interaction\/([^/?]+)/.exec(request.url ?? '')?.[1];
    if (interaction) void signInPage(provider, request, response).catch((error: unknown) => response.writeHead(500).end(String(error)));
    else void provider.callback()(request, response);
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    allowCallback(callbackUrl) {
      callbacks.push(callbackUrl);
      provider = new Provider(issuer, configuration(callbacks, options));
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function configuration(callbacks: readonly string[], options: IdentityProviderOptions): Configuration {
  return {
    clients: [
      {
        client_id: IDP_CLIENT_ID,
        client_secret: IDP_CLIENT_SECRET,
        redirect_uris: [...callbacks],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { required: () => true },
    // The groups go with the profile scope, which the gateway asks for by default.
    claims: { openid: ['sub'], profile: ['name', 'groups'], email: ['email'] },
    // false: the ID token holds the scopes' claims too, as Keycloak's and Okta's do; true keeps them for userinfo.
    conformIdTokenClaims: options.groupsIn === 'userinfo',
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_context, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['test-identity-provider-cookie-key'] },
    // Set, so that the library does not remark on each default it falls back to.
    ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600 },
    findAccount: (_context, sub) => ({
      accountId: sub,
      claims: () => {
        const person = options.people[sub];
        return { sub, name: person?.name ?? sub, email: person?.email ?? `${sub}@example.test`, groups: person?.groups ?? [] };
      },
    }),
  };
}

/** GET: a form asking for the login; POST: the person is signed in and consents to what the client asked. */
async function signInPage(provider: Provider, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(request, response);
  if (request.method === 'GET') {
    const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test identity provider</title><link rel="icon" href="data:,"></head><body>
<form method="post" action="/interaction/${details.uid}"><label for="login">Username</label> <input id="login" name="login" required> <button type="submit">Sign in</button></form></body></html>`;
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    return;
  }
  const login = new URLSearchParams(await readBody(request)).get('login') ?? '';
  const grant = new provider.Grant({ accountId: login, clientId: String(details.params.client_id) });
  grant.addOIDCScope(String(details.params.scope));
  const grantId = await grant.save();
  await provider.interactionFinished(request, response, { login: { accountId: login }, consent: { grantId } }, { mergeWithLastSubmission: false });
}

async function readBody(request: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return text;
}
