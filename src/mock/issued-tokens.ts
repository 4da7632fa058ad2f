import { randomBytes } from 'node:crypto';
import type { TokenProblem } from './vertex-error-bodies.js';

/** One request to the token endpoint, as tests may see it: never the assertion, never the token. */
export interface TokenGrant {
  /** 1-based, in arrival order; restarts at 1 after `reset()`. */
  n: number;
  atMs: number;
  /** `issued`, `invalid_grant`, `invalid_request`, `unsupported_grant_type` or `status <N>`. */
  outcome: string;
  /** The assertion's `sub` (else `iss`): which service account asked. */
  subject?: string;
  /** For an issued token: its number (as Vertex attempts record it) and lifetime. */
  token?: number;
  expiresInS?: number;
  directives: Record<string, string>;
}

/** What a request's bearer is: a token the mock issued that is still alive, or why it is refused. */
export type BearerCheck = { ok: true; token: number } | { ok: false; problem: TokenProblem };

/**
 * The access tokens the mock's token endpoint has issued, with their expiry by the mock's clock,
 * so Vertex routes can refuse a token nobody issued or one that has expired. Tokens are numbered
 * across resets (a gateway may hold one across a test's `reset()`), and only their numbers leave here.
 */
export class IssuedTokens {
  readonly grants: TokenGrant[] = [];
  readonly #expiresAtMs = new Map<string, { token: number; atMs: number }>();
  #tokenCount = 0;
  #grantCount = 0;

  issue(expiresInS: number, nowMs: number): { accessToken: string; token: number } {
    const token = ++this.#tokenCount;
    const accessToken = `ya29.mock-${token}-${randomBytes(12).toString('hex')}`;
    this.#expiresAtMs.set(accessToken, { token, atMs: nowMs + expiresInS * 1000 });
    return { accessToken, token };
  }

  record(grant: Omit<TokenGrant, 'n'>): void {
    this.grants.push({ n: ++this.#grantCount, ...grant });
  }

  check(bearer: string | undefined, nowMs: number): BearerCheck {
    if (bearer === undefined) return { ok: false, problem: 'missing' };
    const issued = this.#expiresAtMs.get(bearer);
    if (!issued) return { ok: false, problem: 'unknown' };
    return nowMs < issued.atMs ? { ok: true, token: issued.token } : { ok: false, problem: 'expired' };
  }

  /** Forgets the grants seen; issued tokens stay valid until they expire. */
  clearGrants(): void {
    this.grants.length = 0;
    this.#grantCount = 0;
  }
}
