import type { IncomingMessage, ServerResponse } from 'node:http';
import * as client from 'openid-client';
import type { AdminOidcConfig } from '../config/admin-oidc-schema.js';
import { knownSecrets } from '../config/known-secrets.js';
import { strongestRole } from '../core/actor.js';
import { redactSecrets } from '../records/redact-secrets.js';
import { cameOverHttps } from './browser-origin.js';
import { mapRoleClaim, roleClaimValues } from './map-role-claim.js';
import { refuseSignIn, type Refusal } from './refuse-sign-in.js';
import { NOT_CONFIGURED, type SignInDeps } from './sign-in-deps.js';
import { clearedFlowCookie, signInFlowOf, type SignInFlow } from './sign-in-flow.js';
import { sendSignInPage } from './sign-in-page.js';
import { openSessionCookies } from './sign-in-session.js';

/** The most claim values a refusal shows and records: a person can be in hundreds of groups. */
const SHOWN_VALUES = 50;
const NAME_LENGTH = 200;

interface IdentifiedPerson {
  sub: string;
  name: string;
  /** The role claim's values; undefined when neither the ID token nor userinfo had the claim. */
  values: string[] | undefined;
}

/**
 * `GET /ui/login/oidc/callback`: checks that this browser started the sign-in (state), exchanges
 * the code (openid-client checks the PKCE verifier's use, the ID token's signature, issuer,
 * audience, expiry and nonce), maps the role claim, and opens the session; or refuses, with a page
 * and a `signin.refused` row.
 */
export async function handleSignInCallback(request: IncomingMessage, response: ServerResponse, requestId: string, deps: SignInDeps): Promise<void> {
  const config = deps.config();
  const oidc = config.admin.oidc;
  if (!oidc) return sendSignInPage(response, 404, NOT_CONFIGURED);
  const secure = cameOverHttps(request);
  const refuse = (refusal: Refusal) => refuseSignIn(request, response, requestId, deps, secure, refusal);
  const query = new URL(request.url ?? '/', 'http://gateway').searchParams;
  const flow = signInFlowOf(request, oidc.client_secret, deps.nowMs());
  if (!flow || query.get('state') !== flow.state) return refuse(BAD_STATE);
  const providerError = query.get('error');
  if (providerError !== null) return refuse(providerRefusal(providerError, query.get('error_description')));
  let person: IdentifiedPerson;
  try {
    person = await identify(await deps.provider.configurationFor(oidc), oidc, flow, query);
  } catch (error) {
    const secrets = new Set([...knownSecrets(config), query.get('code') ?? '']);
    return refuse(exchangeRefusal(redactSecrets(describe(error), secrets)));
  }
  const mapped = await mapRoleClaim(person.values ?? [], oidc.roles, deps.findTeam);
  const role = strongestRole(mapped.global, mapped.grants);
  if (!role) return refuse(noRoleRefusal(person, oidc));
  await deps.audit.event(
    { actor: { kind: 'user', id: person.sub, name: person.name, role }, requestId, sourceIp: request.socket.remoteAddress ?? null },
    { action: 'signin', target: { kind: 'user', id: person.sub }, after: { global_role: mapped.global, teams: mapped.grants } },
  );
  deps.logger.info({ sub: person.sub, role, request_id: requestId }, 'signed in through the identity provider');
  const cookies = openSessionCookies({ sub: person.sub, name: person.name, ...mapped }, oidc.client_secret, { nowMs: deps.nowMs(), secure });
  response.writeHead(303, { location: '/ui/', 'set-cookie': [...cookies, clearedFlowCookie(secure)], 'cache-control': 'no-store', 'content-length': '0' });
  response.end();
}

/** The person the code stands for: the ID token's claims, and userinfo's when the ID token lacks the role claim. */
async function identify(configuration: client.Configuration, oidc: AdminOidcConfig, flow: SignInFlow, query: URLSearchParams): Promise<IdentifiedPerson> {
  const callback = new URL(flow.redirectUri);
  callback.search = query.toString();
  const tokens = await client.authorizationCodeGrant(configuration, callback, {
    pkceCodeVerifier: flow.verifier,
    expectedState: flow.state,
    expectedNonce: flow.nonce,
    idTokenExpected: true,
  });
  const claims = tokens.claims()!;
  let values = roleClaimValues(claims, oidc.role_claim);
  let userinfo: Record<string, unknown> = {};
  if (values === undefined && configuration.serverMetadata().userinfo_endpoint !== undefined) {
    userinfo = await client.fetchUserInfo(configuration, tokens.access_token, claims.sub);
    values = roleClaimValues(userinfo, oidc.role_claim);
  }
  return { sub: claims.sub, name: displayName({ ...userinfo, ...claims }), values };
}

function displayName(claims: Record<string, unknown>): string {
  const name = [claims.name, claims.preferred_username, claims.email, claims.sub].find((value) => typeof value === 'string' && value !== '') as string;
  return name.slice(0, NAME_LENGTH);
}

/** What went wrong: the identity provider's own error when it sent one (`invalid_grant: …`), else openid-client's. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { error: code, error_description: description } = error as { error?: unknown; error_description?: unknown };
  if (typeof code === 'string') return typeof description === 'string' ? `${code}: ${description}` : code;
  return error.message;
}

const BAD_STATE: Refusal = {
  reason: 'bad_state',
  status: 400,
  page: {
    title: 'The sign-in could not be finished',
    paragraphs: ['It was not started in this browser, or took longer than 10 minutes. Sign in again.'],
  },
};

function providerRefusal(error: string, description: string | null): Refusal {
  return {
    reason: 'identity_provider_error',
    status: 403,
    page: { title: 'The identity provider did not sign you in', paragraphs: [`It answered ${error}${description ? `: ${description}` : ''}.`] },
    detail: { error },
  };
}

function exchangeRefusal(message: string): Refusal {
  return {
    reason: 'exchange_failed',
    status: 502,
    page: { title: 'The sign-in could not be finished', paragraphs: [`The identity provider's answer could not be used: ${message}.`, 'Sign in again.'] },
    detail: { error: message },
  };
}

function noRoleRefusal(person: IdentifiedPerson, oidc: AdminOidcConfig): Refusal {
  const values = person.values ?? [];
  const shown = values.slice(0, SHOWN_VALUES);
  const held =
    person.values === undefined
      ? `your identity provider sent no "${oidc.role_claim}" claim`
      : values.length === 0
        ? `your "${oidc.role_claim}" claim was empty`
        : `your "${oidc.role_claim}" claim held ${shown.map((value) => `"${value}"`).join(', ')}${values.length > shown.length ? ` and ${values.length - shown.length} more` : ''}`;
  return {
    reason: 'no_mapped_role',
    status: 403,
    page: {
      title: 'You hold no role at this gateway',
      paragraphs: [
        `You signed in at the identity provider as ${person.name}, but ${held}, and none of that maps to a role here (admin.oidc.roles), or it names a team this gateway does not have.`,
        "Ask the gateway's administrators to give one of your groups a role.",
      ],
    },
    person: { sub: person.sub, name: person.name },
    detail: { claim: oidc.role_claim, values: shown },
  };
}
