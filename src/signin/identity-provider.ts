import * as client from 'openid-client';
import type { AdminOidcConfig } from '../config/admin-oidc-schema.js';

/** A discovery or token request the identity provider has not answered by then fails the sign-in, not the gateway. */
const REQUEST_TIMEOUT_S = 10;

/**
 * The identity provider as the relying party sees it: its discovered metadata, fetched at the
 * first sign-in and kept while the config names the same issuer and client. A failed discovery is
 * not kept, so an identity provider that was down (at the gateway's start, say) is asked again at
 * the next sign-in. openid-client fetches and refreshes the signing keys itself.
 */
export class IdentityProvider {
  #cached: { identity: string; configuration: Promise<client.Configuration> } | undefined;

  configurationFor(oidc: AdminOidcConfig): Promise<client.Configuration> {
    const identity = JSON.stringify([oidc.issuer, oidc.client_id, oidc.client_secret]);
    if (this.#cached?.identity === identity) return this.#cached.configuration;
    const configuration = discover(oidc);
    const cached = { identity, configuration };
    this.#cached = cached;
    configuration.catch(() => {
      if (this.#cached === cached) this.#cached = undefined;
    });
    return configuration;
  }
}

function discover(oidc: AdminOidcConfig): Promise<client.Configuration> {
  const issuer = new URL(oidc.issuer);
  // The schema allows http:// only on loopback, where local and test identity providers run.
  const insecure = issuer.protocol === 'http:' ? [client.allowInsecureRequests] : [];
  // client_secret_basic: what OpenID Connect assumes when a provider names no method, so every provider takes it.
  return client.discovery(issuer, oidc.client_id, oidc.client_secret, client.ClientSecretBasic(oidc.client_secret), {
    execute: insecure,
    timeout: REQUEST_TIMEOUT_S,
  });
}
