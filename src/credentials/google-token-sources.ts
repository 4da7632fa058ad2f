import { GoogleAuth, JWT, gaxios } from 'google-auth-library';
import { GOOGLE_TOKEN_URI, type ServiceAccountKey } from '../providers/vertex/service-account-key.js';

/** Vertex AI takes tokens of the cloud-platform scope. */
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/** A token and how long it lives from now. */
export interface FetchedToken {
  token: string;
  lifetimeMs: number;
}

/** Fetches a new access token; throws `TokenRefused` (or a network error) when none is given. */
export type FetchToken = () => Promise<FetchedToken>;

/** Google's tokens live an hour; assumed when an endpoint says nothing of the lifetime. */
const ASSUMED_LIFETIME_MS = 3_600_000;

/** A token endpoint's refusal, as its status and OAuth `error` code (never its body, which may echo the assertion). */
export class TokenRefused extends Error {
  constructor(readonly status: number | undefined, readonly oauthError: string | undefined) {
    super(`HTTP ${status ?? 'error'}${oauthError === undefined ? '' : ` ${oauthError}`}`);
    this.name = 'TokenRefused';
  }
}

/**
 * A service-account key's tokens, exchanged at the key's own `token_uri` with the cloud-platform
 * scope. The library's JWT client always posts to Google's endpoint and signs the assertion for
 * it, so its transporter (a Gaxios instance, which the library takes as an option) sends the
 * exchange to `token_uri` instead, and the assertion's audience (an additional claim, which the
 * library lets override its own) names `token_uri` too. With a scope the client exchanges rather
 * than self-signing. A new client per fetch: the cache above decides when a token is renewed, not
 * the library's own cache with its own clock. Gaxios's retries are off for the same reason.
 */
export function serviceAccountTokens(key: ServiceAccountKey): FetchToken {
  return async () => {
    const client = new JWT({
      email: key.clientEmail,
      key: key.privateKey,
      ...(key.privateKeyId === undefined ? {} : { keyId: key.privateKeyId }),
      scopes: [CLOUD_PLATFORM_SCOPE],
      additionalClaims: { aud: key.tokenUri },
      transporter: transporterTo(key.tokenUri),
    });
    const credentials = await client.authorize().catch(asTokenRefused);
    return fetched(credentials.access_token, credentials.expiry_date);
  };
}

/** Application Default Credentials: a metadata server, workload identity, or the environment's key file. */
export function applicationDefaultTokens(): FetchToken {
  const auth = new GoogleAuth({ scopes: [CLOUD_PLATFORM_SCOPE] });
  return async () => {
    const client = await auth.getClient();
    // The library's client keeps its token until near its expiry; the cache asks only then.
    const { token } = await client.getAccessToken().catch(asTokenRefused);
    return fetched(token, client.credentials.expiry_date);
  };
}

function transporterTo(tokenUri: string): gaxios.Gaxios {
  const transporter = new gaxios.Gaxios();
  transporter.interceptors.request.add({
    resolved: async (options) => {
      if (options.url.toString() !== GOOGLE_TOKEN_URI) return options;
      return { ...options, url: new URL(tokenUri), retryConfig: { ...options.retryConfig, retry: 0 } };
    },
  });
  return transporter;
}

function fetched(token: string | null | undefined, expiryDate: number | null | undefined): FetchedToken {
  if (!token) throw new TokenRefused(undefined, 'no access_token in the answer');
  const lifetimeMs = typeof expiryDate === 'number' ? expiryDate - Date.now() : ASSUMED_LIFETIME_MS;
  return { token, lifetimeMs };
}

function asTokenRefused(error: unknown): never {
  if (error instanceof gaxios.GaxiosError && error.response !== undefined) {
    const data: unknown = error.response.data;
    const oauthError = typeof data === 'object' && data !== null && 'error' in data && typeof data.error === 'string' ? data.error : undefined;
    throw new TokenRefused(error.response.status, oauthError);
  }
  throw error;
}
