import type { IncomingMessage, ServerResponse } from 'node:http';
import * as client from 'openid-client';
import { sendJson } from '../http/send.js';
import { browserOrigin, cameOverHttps } from './browser-origin.js';
import { NOT_CONFIGURED, type SignInDeps } from './sign-in-deps.js';
import { flowCookie, flowExpiry, type SignInFlow } from './sign-in-flow.js';
import { sendSignInPage } from './sign-in-page.js';

export const CALLBACK_PATH = '/ui/login/oidc/callback';

/**
 * `GET /ui/login/oidc`: the browser goes to the identity provider's authorization endpoint
 * (authorization code with PKCE, S256), carrying a signed cookie with what the callback checks.
 */
export async function handleStartSignIn(request: IncomingMessage, response: ServerResponse, deps: SignInDeps): Promise<void> {
  const oidc = deps.config().admin.oidc;
  if (!oidc) return sendSignInPage(response, 404, NOT_CONFIGURED);
  const origin = browserOrigin(request);
  if (!origin) return sendSignInPage(response, 400, { title: 'No Host header', paragraphs: ['The request named no host the identity provider could send the browser back to.'] });
  let configuration: client.Configuration;
  try {
    configuration = await deps.provider.configurationFor(oidc);
  } catch (error) {
    deps.logger.warn({ err: error, issuer: oidc.issuer }, 'the identity provider could not be reached for a sign-in');
    return sendSignInPage(response, 502, {
      title: 'The identity provider cannot be reached',
      paragraphs: [`The gateway could not read the OpenID configuration of ${oidc.issuer}: ${(error as Error).message}.`, 'Try again in a moment, or sign in with the admin token.'],
    });
  }
  const flow: SignInFlow = {
    state: client.randomState(),
    nonce: client.randomNonce(),
    verifier: client.randomPKCECodeVerifier(),
    redirectUri: `${origin}${CALLBACK_PATH}`,
    exp: flowExpiry(deps.nowMs()),
  };
  const authorization = client.buildAuthorizationUrl(configuration, {
    redirect_uri: flow.redirectUri,
    scope: oidc.scopes.join(' '),
    code_challenge: await client.calculatePKCECodeChallenge(flow.verifier),
    code_challenge_method: 'S256',
    state: flow.state,
    nonce: flow.nonce,
  });
  response.writeHead(302, { location: authorization.href, 'set-cookie': flowCookie(flow, oidc.client_secret, cameOverHttps(request)), 'cache-control': 'no-store', 'content-length': '0' });
  response.end();
}

/** `GET /ui/login/oidc/info`: whether the sign-in form offers the identity provider, and which. */
export function handleSignInInfo(_request: IncomingMessage, response: ServerResponse, deps: Pick<SignInDeps, 'config'>): void {
  const oidc = deps.config().admin.oidc;
  sendJson(response, 200, oidc ? { enabled: true, issuer: oidc.issuer } : { enabled: false, issuer: null }, { 'cache-control': 'no-store' });
}
