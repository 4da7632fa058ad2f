import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parseServiceAccountKey } from '../providers/vertex/service-account-key.js';
import { CachedAccessToken, systemTokenClock, type TokenClock } from './cached-access-token.js';
import { CredentialUnavailable } from './credential-unavailable.js';
import { applicationDefaultTokens, serviceAccountTokens, TokenRefused, type FetchToken } from './google-token-sources.js';

/** A Vertex connection's credential: a service-account key, or neither (Application Default Credentials). */
export interface GoogleCredential {
  credentials_file?: string;
  credentials_json?: string;
}

/** The bearer tokens of connections that sign in to Google (Vertex AI), one cache per connection. */
export interface AccessTokens {
  /** A valid access token for the connection; throws `CredentialUnavailable` when none can be had. */
  bearerFor(connectionName: string, connection: GoogleCredential): Promise<string>;
  /** Stops every background renewal. */
  close(): void;
}

export interface GoogleAccessTokensOptions {
  clock?: TokenClock;
  /** Application Default Credentials (tests put a stand-in here). */
  applicationDefault?: () => FetchToken;
}

export class GoogleAccessTokens implements AccessTokens {
  readonly #clock: TokenClock;
  readonly #applicationDefault: () => FetchToken;
  /** By connection name; a reload that changes a connection's credential replaces its cache. */
  readonly #caches = new Map<string, { credential: string; cache: CachedAccessToken }>();

  constructor(options: GoogleAccessTokensOptions = {}) {
    this.#clock = options.clock ?? systemTokenClock;
    this.#applicationDefault = options.applicationDefault ?? applicationDefaultTokens;
  }

  async bearerFor(connectionName: string, connection: GoogleCredential): Promise<string> {
    const credential = credentialIdentity(connection);
    let entry = this.#caches.get(connectionName);
    if (entry?.credential !== credential) {
      entry?.cache.close();
      entry = { credential, cache: new CachedAccessToken(this.#tokensOf(connection), this.#clock) };
      this.#caches.set(connectionName, entry);
    }
    try {
      return await entry.cache.get();
    } catch (error) {
      throw new CredentialUnavailable(connectionName, whatFailed(connection, error));
    }
  }

  close(): void {
    for (const { cache } of this.#caches.values()) cache.close();
    this.#caches.clear();
  }

  #tokensOf(connection: GoogleCredential): FetchToken {
    const { credentials_json: json, credentials_file: file } = connection;
    if (json !== undefined) return keyTokens(() => Promise.resolve(json), 'credentials_json');
    // Read at each fetch: a key rotated on disk is taken at the next renewal.
    if (file !== undefined) return keyTokens(() => readFile(file, 'utf8'), 'credentials_file');
    return this.#applicationDefault();
  }
}

/** A key's tokens; what is wrong with the key is said naming the field it came from. */
function keyTokens(readKey: () => Promise<string>, field: string): FetchToken {
  return async () => {
    const text = await readKey().catch((error: unknown) => {
      throw new KeyUnusable(`${field} could not be read (${errorCode(error)})`);
    });
    const parsed = parseServiceAccountKey(text);
    if (!parsed.ok) throw new KeyUnusable(`${field} ${parsed.reason}`);
    return serviceAccountTokens(parsed.key)().catch((error: unknown) => {
      throw new KeyUnusable(`the token endpoint ${withoutQuery(parsed.key.tokenUri)} ${refusal(error)}`);
    });
  };
}

class KeyUnusable extends Error {}

/** Keys the cache by the credential without keeping the key's text as a map key. */
function credentialIdentity(connection: GoogleCredential): string {
  const { credentials_json: json = '', credentials_file: file = '' } = connection;
  return createHash('sha256').update(`${file}\0${json}`).digest('hex');
}

function whatFailed(connection: GoogleCredential, error: unknown): string {
  if (error instanceof KeyUnusable) return `no access token: ${error.message}`;
  const usesKey = connection.credentials_json !== undefined || connection.credentials_file !== undefined;
  if (usesKey) return `no access token (${errorCode(error)})`;
  return `no access token from Application Default Credentials: ${refusal(error)} (give credentials_file or credentials_json, or run where a metadata server or workload identity answers)`;
}

/**
 * Why an endpoint gave no token, in words that cannot carry a secret: a refusal's status and
 * OAuth error code, or an error's code. Never an error's message, which may quote a key file
 * or an endpoint's answer.
 */
function refusal(error: unknown): string {
  if (error instanceof TokenRefused) return `refused the key (${error.message})`;
  return `could not be had (${errorCode(error)})`;
}

function errorCode(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as Error & { code?: unknown }).code;
    return typeof code === 'string' ? code : error.name;
  }
  return 'unknown error';
}

/** A token URI's query may carry directives or keys of its own; the endpoint's name is enough. */
function withoutQuery(uri: string): string {
  return uri.replace(/[?#].*$/, '');
}
