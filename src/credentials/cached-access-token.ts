import { timerDelayMs } from '../core/timer-delay.js';
import type { FetchToken } from './google-token-sources.js';

/** Time as the cache sees it: injected, so tests move it by hand. */
export interface TokenClock {
  now(): number;
  /** Runs `task` after `delayMs`; the returned function cancels it. */
  after(delayMs: number, task: () => void): () => void;
}

export const systemTokenClock: TokenClock = {
  now: Date.now,
  after(delayMs, task) {
    // A pending refresh must not keep the process alive on its own.
    const timer = setTimeout(task, timerDelayMs(delayMs)).unref();
    return () => clearTimeout(timer);
  },
};

/** Renewed this long before it expires (at most half its life), so no request waits for it. */
const REFRESH_BEFORE_EXPIRY_MS = 300_000;
/** Not sent this close to expiring (at most a tenth of its life): it could expire on the way. */
const EXPIRY_SKEW_MS = 10_000;
/** A renewal that failed is tried again this soon while the token in hand still works. */
const RETRY_REFRESH_MS = 15_000;

/**
 * One connection's access token. A request gets the token in hand at once; it waits only when
 * there is no valid token at all, and then on the one fetch in flight. Each token is renewed in
 * the background before it expires; a renewal that fails is retried while the old token lasts.
 */
export class CachedAccessToken {
  readonly #fetchToken: FetchToken;
  readonly #clock: TokenClock;
  #current: { token: string; usableUntilMs: number } | undefined;
  #inFlight: Promise<string> | undefined;
  #cancelRenewal: (() => void) | undefined;
  #closed = false;

  constructor(fetchToken: FetchToken, clock: TokenClock = systemTokenClock) {
    this.#fetchToken = fetchToken;
    this.#clock = clock;
  }

  get(): Promise<string> {
    const current = this.#current;
    if (current !== undefined && this.#clock.now() < current.usableUntilMs) return Promise.resolve(current.token);
    return this.#renew();
  }

  close(): void {
    this.#closed = true;
    this.#cancelRenewal?.();
  }

  #renew(): Promise<string> {
    this.#inFlight ??= this.#fetch().finally(() => {
      this.#inFlight = undefined;
    });
    return this.#inFlight;
  }

  async #fetch(): Promise<string> {
    const { token, lifetimeMs } = await this.#fetchToken();
    const now = this.#clock.now();
    this.#current = { token, usableUntilMs: now + lifetimeMs - Math.min(EXPIRY_SKEW_MS, lifetimeMs / 10) };
    this.#scheduleRenewal(lifetimeMs - Math.min(REFRESH_BEFORE_EXPIRY_MS, lifetimeMs / 2));
    return token;
  }

  #scheduleRenewal(delayMs: number): void {
    this.#cancelRenewal?.();
    if (this.#closed) return;
    this.#cancelRenewal = this.#clock.after(Math.max(0, delayMs), () => {
      this.#renew().catch(() => this.#retryWhileUsable());
    });
  }

  /** The token in hand still serves; a request after it has expired fetches (and hears why not). */
  #retryWhileUsable(): void {
    const remainingMs = (this.#current?.usableUntilMs ?? 0) - this.#clock.now();
    if (remainingMs > 0) this.#scheduleRenewal(Math.min(RETRY_REFRESH_MS, remainingMs));
  }
}
