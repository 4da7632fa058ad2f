import type { Config } from '../config/schema.js';
import type { FailureKind } from '../core/failure-kind.js';
import { FAILURE_POLICY, isStructuralKind, type StructuralKind } from '../core/failure-policy.js';
import { WindowCounter } from './window-counter.js';

/** The global `health` block; a route's `health` may override either key. */
export type StructuralSettings = Config['health'];

/** Faults that the answer itself names (the failure-policy table's structural kinds): entered at once. */
export type NamedStructuralCause = StructuralKind;
export type StructuralCause = NamedStructuralCause | 'persistent_429';
export type StructuralState = 'clear' | 'structural';

export interface StructuralTransition {
  from: StructuralState;
  to: StructuralState;
  /** The cause entered, or the one cleared. */
  cause: StructuralCause;
  reason: string;
  atMs: number;
  /** Taken over from another replica (through the shared state), not decided here. */
  adopted?: boolean;
}

/** What replicas agree on about a structural fault. */
export interface SharedStructuralState {
  state: StructuralState;
  cause?: StructuralCause;
  reason: string;
  sinceMs: number;
}

/**
 * Below this many requests sent in the last minute, 429s are not congestion we cause: one
 * request every ten seconds exhausts no limit a deployment fit for production traffic has, so a
 * deployment that keeps refusing at that pace is out of capacity for us (no quota for the model,
 * a spend cap reported as 429), which waiting out a Retry-After will not fix. Above it, the 429s
 * may well be our own load and cooling is the right answer.
 */
export const LOW_REQUESTS_PER_MINUTE = 6;

const RATE_BUCKET_MS = 5_000;
const RATE_BUCKETS = 12;
const MS_PER_SECOND = 1_000;

const NAMED_REASONS: Readonly<Record<NamedStructuralCause, string>> = {
  quota_exhausted: 'quota exhausted',
  not_found: 'model not found',
  credential: 'credential rejected',
};

/**
 * The structural state of one deployment (docs/health.md): faults that retrying and waiting do not cure.
 * Entered on a kind the failure-policy table calls structural, or on cooling failures (429s) that go on for
 * `persist_429_s` (from the first 429 with no success since) while fewer than
 * `LOW_REQUESTS_PER_MINUTE` requests went to the deployment in the last minute. Left only by a
 * successful active probe, never by a timer; probes are due every `probe_interval_s`.
 */
export class StructuralFault {
  #settings: StructuralSettings;
  readonly #now: () => number;
  readonly #onTransition: ((change: StructuralTransition) => void) | undefined;
  #state: StructuralState = 'clear';
  #cause: StructuralCause | undefined;
  #sinceMs: number;
  #reason = 'initial state';
  #nextProbeAtMs: number | undefined;
  /** When the current run of 429s began; cleared by a success. */
  #rateLimitedSinceMs: number | undefined;
  readonly #requestsSent = new WindowCounter(RATE_BUCKETS, RATE_BUCKET_MS);
  #adopted = false;

  constructor(
    settings: StructuralSettings,
    now: () => number = Date.now,
    onTransition?: (change: StructuralTransition) => void,
  ) {
    this.#settings = settings;
    this.#now = now;
    this.#onTransition = onTransition;
    this.#sinceMs = now();
  }

  get state(): StructuralState {
    return this.#state;
  }

  get cause(): StructuralCause | undefined {
    return this.#cause;
  }

  get sinceMs(): number {
    return this.#sinceMs;
  }

  get reason(): string {
    return this.#reason;
  }

  /** When the next active probe is due; undefined when clear. */
  get nextProbeAtMs(): number | undefined {
    return this.#nextProbeAtMs;
  }

  /** Whether the current state was taken over from another replica rather than decided here. */
  get adopted(): boolean {
    return this.#adopted;
  }

  snapshot(): SharedStructuralState {
    return { state: this.#state, ...(this.#cause === undefined ? {} : { cause: this.#cause }), reason: this.#reason, sinceMs: this.#sinceMs };
  }

  /** Takes over the state another replica decided (heard as a transition with `adopted`). */
  adopt(shared: SharedStructuralState): void {
    if (shared.state === this.#state || shared.cause === undefined) return;
    const cause = shared.cause;
    this.#rateLimitedSinceMs = undefined;
    if (shared.state === 'structural') {
      this.#cause = cause;
      this.#nextProbeAtMs = this.#now() + this.probeIntervalMs;
    } else {
      this.#cause = undefined;
      this.#nextProbeAtMs = undefined;
    }
    this.#transition(shared.state, cause, shared.reason, { adopted: true, atMs: shared.sinceMs });
  }

  /** A reload may change the numbers; the state stays. A shorter probe interval applies at once. */
  configure(settings: StructuralSettings): void {
    this.#settings = settings;
    if (this.#nextProbeAtMs !== undefined) {
      this.#nextProbeAtMs = Math.min(this.#nextProbeAtMs, this.#now() + this.probeIntervalMs);
    }
  }

  /** Counts a request sent to the deployment, when it is sent: its rate decides what 429s mean. */
  requestSent(): void {
    this.#requestsSent.add(this.#now());
  }

  /** The outcome of a live request to this deployment. Outcomes while structural change nothing. */
  record(kind: FailureKind): void {
    if (this.#state === 'structural') return;
    if (kind === 'ok') {
      this.#rateLimitedSinceMs = undefined;
      return;
    }
    if (isStructuralKind(kind)) this.enter(kind);
    else if (FAILURE_POLICY[kind].cools) this.#recordRateLimit();
  }

  /**
   * Puts the deployment in the structural state for a named cause. Called by `record` for the
   * deployment's own answers, and by the caller for a credential rejected on another deployment
   * of the same connection (a key is the connection's, not the model's).
   */
  enter(cause: NamedStructuralCause, reason: string = NAMED_REASONS[cause]): void {
    this.#enter(cause, reason);
  }

  probeSucceeded(): void {
    if (this.#state !== 'structural' || this.#cause === undefined) return;
    const cause = this.#cause;
    this.#cause = undefined;
    this.#nextProbeAtMs = undefined;
    this.#rateLimitedSinceMs = undefined;
    this.#transition('clear', cause, `readmitted by a successful active probe (was: ${this.#reason})`);
  }

  /** The next probe is due one interval from now (this one failed, or another replica holds this interval's probe). */
  postponeProbe(): void {
    if (this.#state !== 'structural') return;
    this.#nextProbeAtMs = this.#now() + this.probeIntervalMs;
  }

  #recordRateLimit(): void {
    const nowMs = this.#now();
    this.#rateLimitedSinceMs ??= nowMs;
    const persistedMs = nowMs - this.#rateLimitedSinceMs;
    if (persistedMs < this.#settings.persist_429_s * MS_PER_SECOND) return;
    const requestsLastMinute = this.#requestsSent.count(nowMs);
    if (requestsLastMinute >= LOW_REQUESTS_PER_MINUTE) return;
    const persistedS = Math.round(persistedMs / MS_PER_SECOND);
    this.#enter('persistent_429', `429s for ${persistedS} s at ${requestsLastMinute} requests/min`);
  }

  #enter(cause: StructuralCause, reason: string): void {
    if (this.#state === 'structural') return;
    this.#cause = cause;
    this.#rateLimitedSinceMs = undefined;
    this.#nextProbeAtMs = this.#now() + this.probeIntervalMs;
    this.#transition('structural', cause, reason);
  }

  get probeIntervalMs(): number {
    return this.#settings.probe_interval_s * MS_PER_SECOND;
  }

  #transition(to: StructuralState, cause: StructuralCause, reason: string, taken?: { adopted: true; atMs: number }): void {
    const from = this.#state;
    const atMs = taken?.atMs ?? this.#now();
    this.#state = to;
    this.#sinceMs = atMs;
    this.#reason = reason;
    this.#adopted = taken !== undefined;
    this.#onTransition?.({ from, to, cause, reason, atMs, ...(taken ? { adopted: true } : {}) });
  }
}
