import { InMemoryBudgetGate, type BudgetReservation } from './budget-gate.js';
import type { Consumption } from './consumption.js';
import { InMemoryRateLimiter, type RateLimitName } from './rate-limiter.js';

/** One request at the gate: its key's limits and, with a budget, what it may cost. */
export interface GateRequest {
  keyId: string;
  /** Requests per minute; null: unlimited. */
  rpm: number | null;
  /** Tokens per minute; null: unlimited. */
  tpm: number | null;
  /** The request's input tokens, estimated before any provider counted them. */
  estimatedTokens: number;
  /** Absent: the key has no budget. */
  budget?: {
    budgetMicros: number;
    /** When the key's current budget period began, epoch ms. */
    periodStartMs: number;
    /** The most this request can cost (`maxCostMicros`). */
    maxCostMicros: number;
    /** The least it can be lowered to (`BudgetReservationRequest.minCostMicros`); absent: the maximum or nothing. */
    minCostMicros?: number;
  };
  nowMs: number;
}

/** What an admitted request holds until it ends. */
export interface AdmissionTicket {
  /**
   * Charges what the request really used (the token estimate corrected, the real cost counted)
   * and releases its reservation. Never waits on anything; settling twice settles once.
   */
  settle(consumption: Consumption, nowMs: number): void;
}

export type GateAdmission =
  /** `reservedMicros`: what the budget reservation holds (less than the maximum cost when only that was left); absent without a budget. */
  | { ok: true; ticket: AdmissionTicket; reservedMicros?: number }
  | { ok: false; limit: RateLimitName; retryAfterMs: number }
  /** `availableMicros`: what is left once spend and in-flight reservations are counted. */
  | { ok: false; limit: 'budget'; availableMicros: number };

/**
 * The key gate (docs/keys-and-budgets.md): rate limits and the budget reservation decided together,
 * so a shared implementation decides them in one round trip. A request refused by its budget
 * still counts as a request against `rpm` but is charged no tokens.
 */
export interface AdmissionGate {
  admit(request: GateRequest): Promise<GateAdmission>;
  /** What the key's in-flight requests hold back (for `GET /admin/keys/:id/spend`). */
  reservedMicros(keyId: string): Promise<number>;
}

/** The ledger's sum for a key since a time: where a key's spend starts when the gate has none. */
export type LedgerSpent = (keyId: string, sinceMs: number) => Promise<number>;

/** The gate of one process: the in-memory token buckets and budget reservations, composed. */
export class InMemoryAdmissionGate implements AdmissionGate {
  readonly rateLimiter: InMemoryRateLimiter;
  readonly #budgetGate = new InMemoryBudgetGate();
  readonly #ledgerSpentMicros: LedgerSpent;

  constructor(options: { ledgerSpentMicros: LedgerSpent; rateLimiter?: InMemoryRateLimiter }) {
    this.#ledgerSpentMicros = options.ledgerSpentMicros;
    this.rateLimiter = options.rateLimiter ?? new InMemoryRateLimiter();
  }

  async admit(request: GateRequest): Promise<GateAdmission> {
    const { keyId, rpm, tpm, estimatedTokens, budget, nowMs } = request;
    const rate = rpm !== null || tpm !== null ? this.rateLimiter.admit({ keyId, rpm, tpm, estimatedTokens, nowMs }) : undefined;
    if (rate && !rate.ok) return rate;
    const rateTicket = rate?.ticket;
    let reservation: BudgetReservation | undefined;
    if (budget) {
      const spentMicros = this.#budgetGate.spentMicros(keyId, budget.periodStartMs) ?? (await this.#ledgerSpentMicros(keyId, budget.periodStartMs));
      const reserved = this.#budgetGate.reserve({ keyId, ...budget, spentMicros });
      if (!reserved.ok) {
        if (rateTicket) this.rateLimiter.settle(rateTicket, 0, nowMs);
        return { ok: false, limit: 'budget', availableMicros: reserved.availableMicros };
      }
      reservation = reserved.reservation;
    }
    let settled = false;
    const ticket: AdmissionTicket = {
      settle: (consumption, settledAtMs) => {
        if (settled) return;
        settled = true;
        if (rateTicket) this.rateLimiter.settle(rateTicket, consumption.tokens, settledAtMs);
        if (reservation) this.#budgetGate.settle(reservation, consumption.costMicros);
      },
    };
    return reservation ? { ok: true, ticket, reservedMicros: reservation.reservedMicros } : { ok: true, ticket };
  }

  async reservedMicros(keyId: string): Promise<number> {
    return this.#budgetGate.reservedMicros(keyId);
  }
}
