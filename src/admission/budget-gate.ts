/**
 * Per-key budgets with reservations (docs/keys-and-budgets.md), in integer micro-dollars. A team's
 * budget is kept the same way under the team's id (`team_…`, never a key's `key_…`): below, a
 * "key" is either.
 *
 * Admission reserves a request's maximum cost and the request settles it with its real cost when
 * it ends. A request is refused when what the key has spent this period, plus every reservation
 * still in flight, plus its own minimum would pass the budget; one whose maximum does not fit but
 * whose minimum does reserves what is left, and is then lowered to what that pays for. So any
 * number of concurrent requests cannot together spend past it (up to how far a request's real
 * cost can exceed its reservation, which is the estimate's error).
 *
 * The durable record of spend is the ledger; the gate is its in-memory running total. A key's
 * spend for a period is read from the ledger once, the first time the gate sees the key in that
 * period, and kept here from then on: settled costs are added as requests end, without waiting
 * for the ledger's batched write.
 */

export interface BudgetReservationRequest {
  keyId: string;
  budgetMicros: number;
  /** When the key's current budget period began, epoch ms (`periodStart`, parsed). */
  periodStartMs: number;
  /**
   * The ledger's sum for this key since `periodStartMs`. Used only when the gate does not yet hold
   * the key's spend for that period; pass `spentMicros(keyId, periodStartMs)` when it does.
   */
  spentMicros: number;
  /** The most this request can cost (`maxCostMicros`). */
  maxCostMicros: number;
  /**
   * The least it can be lowered to (a route's `budget_fit: clamp`): when the maximum does not fit,
   * what is left is reserved if it holds this much. Absent: the maximum or nothing.
   */
  minCostMicros?: number;
}

export interface BudgetReservation {
  readonly id: number;
  readonly keyId: string;
  /** What the reservation holds: the maximum cost, or less when only that much was left. */
  readonly reservedMicros: number;
}

export type BudgetAdmission =
  | { ok: true; reservation: BudgetReservation }
  /** `availableMicros`: what is left once spend and in-flight reservations are counted. */
  | { ok: false; availableMicros: number };

export type JointBudgetAdmission =
  /** One reservation per budget, in the order asked, each holding the same amount. */
  | { ok: true; reservations: BudgetReservation[] }
  /** `refusedBy`: the index of the first budget that cannot take the request, and what is left of it. */
  | { ok: false; refusedBy: number; availableMicros: number };

/** The seam for a shared (Redis) implementation when the gateway runs as several replicas. */
export interface BudgetGate {
  /** The key's spend this period as the gate holds it; undefined: read it from the ledger first. */
  spentMicros(keyId: string, periodStartMs: number): number | undefined;
  reserve(request: BudgetReservationRequest): BudgetAdmission;
  /**
   * Reserves one request in several budgets (a key's and its team's) or in none: each holds the
   * same amount, what the tightest of them has room for.
   */
  reserveTogether(requests: readonly BudgetReservationRequest[]): JointBudgetAdmission;
  /** Releases the reservation and counts the real cost. Settling twice releases once. */
  settle(reservation: BudgetReservation, actualCostMicros: number): void;
  /** What the key's in-flight requests hold back (for `GET /admin/keys/:id/spend`). */
  reservedMicros(keyId: string): number;
}

interface KeyBudgetState {
  periodStartMs: number;
  spentMicros: number;
  reservedMicros: number;
  /** In-flight reservations: id → reserved micro-dollars. */
  open: Map<number, number>;
}

/** Enough for every key of a large deployment; each costs a few hundred bytes. */
const DEFAULT_MAX_KEYS = 100_000;

/**
 * Budget state per key for this process. Memory is bounded by `maxKeys`: past it the key used
 * least recently without a request in flight is forgotten, and read again from the ledger if it
 * returns. With a bound this large that happens long after the ledger has written its costs.
 */
export class InMemoryBudgetGate implements BudgetGate {
  /** Insertion order is recency of use: the first entries are the ones to forget. */
  readonly #keys = new Map<string, KeyBudgetState>();
  readonly #maxKeys: number;
  #lastReservationId = 0;

  constructor(options: { maxKeys?: number } = {}) {
    this.#maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
  }

  spentMicros(keyId: string, periodStartMs: number): number | undefined {
    const state = this.#keys.get(keyId);
    return state && state.periodStartMs >= periodStartMs ? state.spentMicros : undefined;
  }

  reserve(request: BudgetReservationRequest): BudgetAdmission {
    const admission = this.reserveTogether([request]);
    return admission.ok ? { ok: true, reservation: admission.reservations[0]! } : { ok: false, availableMicros: admission.availableMicros };
  }

  reserveTogether(requests: readonly BudgetReservationRequest[]): JointBudgetAdmission {
    const states = requests.map((request) => this.#stateFor(request));
    this.#forgetIdleBeyond(this.#maxKeys, requests);
    let reservedMicros = Number.POSITIVE_INFINITY;
    for (const [index, { budgetMicros, maxCostMicros, minCostMicros = maxCostMicros }] of requests.entries()) {
      const state = states[index]!;
      const availableMicros = budgetMicros - state.spentMicros - state.reservedMicros;
      // A spent budget refuses even a request of unknown price (maximum cost 0).
      if (availableMicros <= 0 || minCostMicros > availableMicros) return { ok: false, refusedBy: index, availableMicros: Math.max(0, availableMicros) };
      reservedMicros = Math.min(reservedMicros, maxCostMicros, availableMicros);
    }
    const id = ++this.#lastReservationId;
    const reservations = requests.map(({ keyId }, index) => {
      const state = states[index]!;
      state.open.set(id, reservedMicros);
      state.reservedMicros += reservedMicros;
      return { id, keyId, reservedMicros };
    });
    return { ok: true, reservations };
  }

  settle(reservation: BudgetReservation, actualCostMicros: number): void {
    const state = this.#keys.get(reservation.keyId);
    const reservedMicros = state?.open.get(reservation.id);
    // Already settled, or reserved in a period that has ended since: the ledger dates a request's
    // cost by when it started, so it counts toward that period, not the current one.
    if (!state || reservedMicros === undefined) return;
    state.open.delete(reservation.id);
    state.reservedMicros -= reservedMicros;
    state.spentMicros += Math.max(0, actualCostMicros);
  }

  reservedMicros(keyId: string): number {
    return this.#keys.get(keyId)?.reservedMicros ?? 0;
  }

  /** The key's state for the request's period, created from the ledger's sum on first sight. */
  #stateFor(request: BudgetReservationRequest): KeyBudgetState {
    let state = this.#keys.get(request.keyId);
    if (state) this.#keys.delete(request.keyId);
    // A new period starts from the ledger's sum for it; reservations of the old one lapse with it.
    // A request dated in an earlier period than the state's is held against the current one.
    if (!state || request.periodStartMs > state.periodStartMs) {
      state = { periodStartMs: request.periodStartMs, spentMicros: Math.max(0, request.spentMicros), reservedMicros: 0, open: new Map() };
    }
    this.#keys.set(request.keyId, state);
    return state;
  }

  #forgetIdleBeyond(maxKeys: number, kept: readonly BudgetReservationRequest[]): void {
    if (this.#keys.size <= maxKeys) return;
    for (const [keyId, state] of this.#keys) {
      if (state.open.size === 0 && !kept.some((request) => request.keyId === keyId)) this.#keys.delete(keyId);
      if (this.#keys.size <= maxKeys) return;
    }
  }
}
