import type { RouteConfig } from '../config/schema.js';
import type { AttemptFailureKind } from '../core/failure-policy.js';
import type { BreakerOutcome } from './breaker-outcome.js';
import { WindowCounter } from './window-counter.js';

export type BreakerSettings = Pick<
  NonNullable<RouteConfig['health']>,
  'consecutive_failures' | 'error_ratio' | 'min_requests' | 'window_s' | 'eject_base_s' | 'eject_max_s'
>;

export type BreakerState = 'closed' | 'ejected' | 'half_open';

export interface BreakerTransition {
  from: BreakerState;
  to: BreakerState;
  reason: string;
  atMs: number;
  /** Taken over from another replica (through the shared state), not decided here. */
  adopted?: boolean;
  /** Closed by a recovery probe's success, which readmits from ejected or half-open alike (a trial only from its own half-open). */
  byProbe?: boolean;
}

/** What replicas agree on about a breaker: everything but the failure counts each keeps to itself. */
export interface SharedBreakerState {
  state: BreakerState;
  sinceMs: number;
  reason: string;
  ejectedUntilMs?: number;
  consecutiveEjections: number;
  /** The failure kind that ejected it (absent when closed, or set by a replica of an older version). */
  ejectedBy?: AttemptFailureKind;
}

/**
 * Proof that a request was let through, handed back with its outcome. The epoch ties the outcome
 * to the state period it was admitted in: a request admitted before an ejection that ends after
 * it must not be mistaken for the half-open trial, nor count toward the next closed period.
 */
export interface BreakerPermit {
  readonly epoch: number;
  /** The one request a half-open breaker lets through. */
  readonly trial: boolean;
}

const MS_PER_SECOND = 1_000;

/**
 * The ejection state machine of one deployment (docs/health.md). Closed: countable failures trip it,
 * either `consecutive_failures` in a row or an error ratio ≥ `error_ratio` over ≥ `min_requests`
 * outcomes in the last `window_s` seconds. Ejected: nothing is admitted for `eject_base_s`,
 * doubling with each consecutive ejection up to `eject_max_s`. When that time is up, the next
 * request to ask turns it half-open and is the single trial: success closes it and resets the
 * doubling, failure ejects it again for longer. A recovery probe's success (`readmit`) closes it
 * at any point of the ejection, the same way.
 */
export class Breaker {
  #settings: BreakerSettings;
  readonly #now: () => number;
  readonly #onTransition: ((change: BreakerTransition) => void) | undefined;
  #state: BreakerState = 'closed';
  #sinceMs: number;
  #reason = 'initial state';
  #epoch = 0;
  #ejectedUntilMs: number | undefined;
  #ejectedBy: AttemptFailureKind | undefined;
  #consecutiveEjections = 0;
  #consecutiveFailures = 0;
  #trialInFlight = false;
  #adopted = false;
  /** Successes and failures (not neutral outcomes) in the window, per second. */
  #outcomes: WindowCounter;
  #failures: WindowCounter;

  constructor(
    settings: BreakerSettings,
    now: () => number = Date.now,
    onTransition?: (change: BreakerTransition) => void,
  ) {
    this.#settings = settings;
    this.#now = now;
    this.#onTransition = onTransition;
    this.#sinceMs = now();
    this.#outcomes = new WindowCounter(settings.window_s, MS_PER_SECOND);
    this.#failures = new WindowCounter(settings.window_s, MS_PER_SECOND);
  }

  get state(): BreakerState {
    return this.#state;
  }

  /**
   * The state as it stands now, for whoever reports it. The breaker turns half-open only when a
   * request asks (that request is its trial), but once the ejection time is up the deployment is
   * no longer out for it: it is waiting for its trial.
   */
  get stateNow(): BreakerState {
    if (this.#state === 'ejected' && this.#now() >= (this.#ejectedUntilMs ?? 0)) return 'half_open';
    return this.#state;
  }

  /** When the current state began. */
  get sinceMs(): number {
    return this.#sinceMs;
  }

  /** Why the breaker is in its current state. */
  get reason(): string {
    return this.#reason;
  }

  /** When the current ejection ends (still set while half-open); undefined when closed. */
  get ejectedUntilMs(): number | undefined {
    return this.#ejectedUntilMs;
  }

  /** The kind of the failure that ejected it (tripped it, or failed its trial); undefined when closed or not shared. */
  get ejectedBy(): AttemptFailureKind | undefined {
    return this.#ejectedBy;
  }

  /** Ejections since the breaker last closed after a successful trial: the exponent of the doubling. */
  get consecutiveEjections(): number {
    return this.#consecutiveEjections;
  }

  get settings(): BreakerSettings {
    return this.#settings;
  }

  /** Whether the current state was taken over from another replica rather than decided here. */
  get adopted(): boolean {
    return this.#adopted;
  }

  /** Whether the next `admit` would be the half-open trial: the ejection time is up and no trial is in flight. */
  get trialDue(): boolean {
    if (this.#state === 'ejected') return this.#now() >= (this.#ejectedUntilMs ?? 0);
    return this.#state === 'half_open' && !this.#trialInFlight;
  }

  snapshot(): SharedBreakerState {
    return {
      state: this.#state,
      sinceMs: this.#sinceMs,
      reason: this.#reason,
      ...(this.#ejectedUntilMs === undefined ? {} : { ejectedUntilMs: this.#ejectedUntilMs }),
      consecutiveEjections: this.#consecutiveEjections,
      ...(this.#ejectedBy === undefined ? {} : { ejectedBy: this.#ejectedBy }),
    };
  }

  /**
   * Takes over the state another replica decided. A change of state is a transition (heard with
   * `adopted`), so a request admitted before it cannot settle into the new period; the same state
   * only takes the shared figures (the ejection's end, the doubling).
   */
  adopt(shared: SharedBreakerState): void {
    this.#ejectedUntilMs = shared.ejectedUntilMs;
    this.#consecutiveEjections = shared.consecutiveEjections;
    // A replica of an older version shares no kind: what this one knew of the same state stands.
    if (shared.state === 'closed') this.#ejectedBy = undefined;
    else if (shared.ejectedBy !== undefined || shared.state !== this.#state) this.#ejectedBy = shared.ejectedBy;
    if (shared.state === this.#state) return;
    this.#trialInFlight = false;
    this.#consecutiveFailures = 0;
    this.#outcomes.clear();
    this.#failures.clear();
    this.#transition(shared.state, shared.reason, { adopted: true, atMs: shared.sinceMs });
  }

  /**
   * A reload may change the numbers; the state stays. A running ejection keeps its end (the new
   * durations apply from the next one). A new `window_s` starts the ratio window afresh, which
   * forgets at most one window of outcomes.
   */
  configure(settings: BreakerSettings): void {
    if (settings.window_s !== this.#settings.window_s) {
      this.#outcomes = new WindowCounter(settings.window_s, MS_PER_SECOND);
      this.#failures = new WindowCounter(settings.window_s, MS_PER_SECOND);
    }
    this.#settings = settings;
  }

  /**
   * Asks to send one request. Closed: admitted. Ejected: refused until the ejection time is up;
   * then the breaker turns half-open and this request is its trial. Half-open: refused while the
   * trial is in flight. Every permit must be handed back to `record` exactly once.
   */
  admit(): BreakerPermit | undefined {
    if (this.#state === 'ejected') {
      if (this.#now() < (this.#ejectedUntilMs ?? 0)) return undefined;
      this.#transition('half_open', 'ejection time is up');
    }
    if (this.#state === 'half_open') {
      if (this.#trialInFlight) return undefined;
      this.#trialInFlight = true;
      return { epoch: this.#epoch, trial: true };
    }
    return { epoch: this.#epoch, trial: false };
  }

  /**
   * Lets a request through whatever the state, for when every target of a route is out and this
   * one's ejection ends soonest (never eject the last option). While ejected or half-open its
   * outcome moves nothing: only the trial decides whether the deployment comes back.
   */
  forceAdmit(): BreakerPermit {
    return { epoch: this.#epoch, trial: false };
  }

  /** `kind`: the failure's kind, kept as what ejected the deployment if this failure does. */
  record(permit: BreakerPermit, outcome: BreakerOutcome, kind?: AttemptFailureKind): void {
    if (permit.epoch !== this.#epoch) return;
    if (this.#state === 'half_open') {
      if (permit.trial) this.#recordTrial(outcome, kind);
      return;
    }
    if (this.#state === 'closed' && outcome !== 'neutral') this.#recordClosed(outcome, kind);
  }

  /**
   * The gateway's own recovery probe succeeded: closed now, whatever is left of the ejection, and
   * the doubling starts again, as after a successful trial. A trial still in flight belongs to the
   * ended period, so its outcome moves nothing.
   */
  readmit(): void {
    if (this.#state === 'closed') return;
    this.#close('readmitted by a successful recovery probe', { byProbe: true });
  }

  #recordTrial(outcome: BreakerOutcome, kind: AttemptFailureKind | undefined): void {
    // A neutral trial (throttled, cancelled…) proved nothing either way: free the slot for another.
    this.#trialInFlight = false;
    if (outcome === 'success') this.#close('trial request succeeded');
    else if (outcome === 'failure') this.#eject('trial request failed', kind);
  }

  #close(reason: string, how?: { byProbe: true }): void {
    this.#trialInFlight = false;
    this.#consecutiveEjections = 0;
    this.#ejectedUntilMs = undefined;
    this.#ejectedBy = undefined;
    this.#transition('closed', reason, how);
  }

  #recordClosed(outcome: 'success' | 'failure', kind: AttemptFailureKind | undefined): void {
    const nowMs = this.#now();
    this.#outcomes.add(nowMs);
    if (outcome === 'success') {
      this.#consecutiveFailures = 0;
    } else {
      this.#failures.add(nowMs);
      this.#consecutiveFailures += 1;
    }
    const tripReason = this.#tripReason(nowMs);
    if (tripReason !== undefined) this.#eject(tripReason, kind);
  }

  #tripReason(nowMs: number): string | undefined {
    const { consecutive_failures, error_ratio, min_requests, window_s } = this.#settings;
    if (this.#consecutiveFailures >= consecutive_failures) return `${this.#consecutiveFailures} consecutive failures`;
    const outcomes = this.#outcomes.count(nowMs);
    if (outcomes < min_requests) return undefined;
    const ratio = this.#failures.count(nowMs) / outcomes;
    if (ratio < error_ratio) return undefined;
    return `error ratio ${ratio.toFixed(2)} over ${outcomes} requests in ${window_s} s`;
  }

  #eject(reason: string, kind: AttemptFailureKind | undefined): void {
    const { eject_base_s, eject_max_s } = this.#settings;
    this.#ejectedBy = kind;
    this.#consecutiveEjections += 1;
    const ejectionS = Math.min(eject_base_s * 2 ** (this.#consecutiveEjections - 1), eject_max_s);
    this.#ejectedUntilMs = this.#now() + ejectionS * MS_PER_SECOND;
    this.#consecutiveFailures = 0;
    this.#outcomes.clear();
    this.#failures.clear();
    this.#transition('ejected', reason);
  }

  #transition(to: BreakerState, reason: string, how?: { adopted: true; atMs: number } | { byProbe: true }): void {
    const from = this.#state;
    const taken = how && 'adopted' in how ? how : undefined;
    const atMs = taken?.atMs ?? this.#now();
    this.#state = to;
    this.#sinceMs = atMs;
    this.#reason = reason;
    this.#epoch += 1;
    this.#adopted = taken !== undefined;
    this.#onTransition?.({ from, to, reason, atMs, ...(taken ? { adopted: true } : {}), ...(how && 'byProbe' in how ? { byProbe: true } : {}) });
  }
}
