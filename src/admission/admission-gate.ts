import { InMemoryBudgetGate, type BudgetReservation, type BudgetReservationRequest } from './budget-gate.js';
import type { Consumption } from './consumption.js';
import { InMemoryRateLimiter, type RateLimitName, type RateRefusal } from './rate-limiter.js';

/** A budget at the gate: its size and period, and what this request may cost of it. */
export interface GateBudget {
  budgetMicros: number;
  /** When the budget's current period began, epoch ms. */
  periodStartMs: number;
  /** The most this request can cost (`maxCostMicros`). */
  maxCostMicros: number;
  /** The least it can be lowered to (`BudgetReservationRequest.minCostMicros`); absent: the maximum or nothing. */
  minCostMicros?: number;
}

/** One request at the gate: its key's limits and, with a budget, what it may cost; and its team's. */
export interface GateRequest {
  keyId: string;
  /** Requests per minute; null: unlimited. */
  rpm: number | null;
  /** Tokens per minute; null: unlimited. */
  tpm: number | null;
  /** The request's input tokens, estimated before any provider counted them. */
  estimatedTokens: number;
  /** Absent: the key has no budget. */
  budget?: GateBudget;
  /**
   * The key's team, when it has one: its limits and budget, if it sets any, are counted across all
   * the team's keys, besides the key's own, and the request passes both or neither. Its budget's
   * costs are the key's (one request).
   */
  team?: { teamId: string; rpm: number | null; tpm: number | null; budget?: GateBudget };
  nowMs: number;
}

/** Whose limits a request is counted against: the key's, then its team's. */
export interface GateSubject {
  id: string;
  rpm: number | null;
  tpm: number | null;
  budget?: GateBudget;
  /** The team's rather than the key's. */
  isTeam: boolean;
}

/** The key, then its team when the team sets a limit or a budget. */
export function subjectsOf(request: GateRequest): GateSubject[] {
  const key: GateSubject = { id: request.keyId, rpm: request.rpm, tpm: request.tpm, budget: request.budget, isTeam: false };
  const { team } = request;
  if (!team || (team.rpm === null && team.tpm === null && !team.budget)) return [key];
  return [key, { id: team.teamId, rpm: team.rpm, tpm: team.tpm, budget: team.budget, isTeam: true }];
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
  | ({ ok: false; limit: RateLimitName; retryAfterMs: number } & RefusedBy)
  /** `availableMicros`: what is left once spend and in-flight reservations are counted. */
  | ({ ok: false; limit: 'budget'; availableMicros: number } & RefusedBy);

/** `refusedBy: 'team'` when the team's limit or budget refused the request; absent: the key's did. */
export interface RefusedBy {
  refusedBy?: 'team';
}

/** A refusal's `refusedBy`, spread into it. */
export function refusedBy(subject: GateSubject | undefined): RefusedBy {
  return subject?.isTeam ? { refusedBy: 'team' } : {};
}

/**
 * The key gate (docs/keys-and-budgets.md): rate limits and the budget reservation decided together,
 * for the key and its team at once, so a shared implementation decides them in one round trip.
 * A request refused by a limit is charged nothing, by either. One refused by a budget (the key's or
 * the team's) still counts as a request against both `rpm`s but is charged no tokens and reserves nothing.
 */
export interface AdmissionGate {
  admit(request: GateRequest): Promise<GateAdmission>;
  /**
   * What the in-flight requests of a key or a team (by id) hold back (for `GET /admin/keys/:id/spend`,
   * `GET /admin/teams/:id/spend`). `teamId`: a key's team, when it has one.
   */
  reservedMicros(id: string, teamId?: string | null): Promise<number>;
}

/** The ledger's sum for a key or a team (by id) since a time: where its spend starts when the gate has none. */
export type LedgerSpent = (id: string, sinceMs: number) => Promise<number>;

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
    const { estimatedTokens, nowMs } = request;
    const subjects = subjectsOf(request);
    const budgets: BudgetReservationRequest[] = [];
    const budgeted: GateSubject[] = [];
    for (const subject of subjects) {
      const { budget } = subject;
      if (!budget) continue;
      const spentMicros = this.#budgetGate.spentMicros(subject.id, budget.periodStartMs) ?? (await this.#ledgerSpentMicros(subject.id, budget.periodStartMs));
      budgets.push({ keyId: subject.id, ...budget, spentMicros });
      budgeted.push(subject);
    }
    // From here on nothing waits: the request passes every limit and budget, or takes nothing.
    const rates = subjects.map(({ id, rpm, tpm }) => ({ keyId: id, rpm, tpm, estimatedTokens, nowMs }));
    let refusal: (RateRefusal & RefusedBy) | undefined;
    for (const [index, rate] of rates.entries()) {
      const refused = this.rateLimiter.refusal(rate);
      // Every limit must have room: the caller is told the longest wait.
      if (refused && refused.retryAfterMs > (refusal?.retryAfterMs ?? 0)) refusal = { ...refused, ...refusedBy(subjects[index]) };
    }
    if (refusal) return refusal;
    const rateTickets = rates.filter(({ rpm, tpm }) => rpm !== null || tpm !== null).map((rate) => this.rateLimiter.charge(rate));
    let reservations: BudgetReservation[] = [];
    if (budgets.length > 0) {
      const reserved = this.#budgetGate.reserveTogether(budgets);
      if (!reserved.ok) {
        // Still a request against rpm; its tokens are given back.
        for (const rateTicket of rateTickets) this.rateLimiter.settle(rateTicket, 0, nowMs);
        return { ok: false, limit: 'budget', availableMicros: reserved.availableMicros, ...refusedBy(budgeted[reserved.refusedBy]) };
      }
      reservations = reserved.reservations;
    }
    let settled = false;
    const ticket: AdmissionTicket = {
      settle: (consumption, settledAtMs) => {
        if (settled) return;
        settled = true;
        for (const rateTicket of rateTickets) this.rateLimiter.settle(rateTicket, consumption.tokens, settledAtMs);
        for (const reservation of reservations) this.#budgetGate.settle(reservation, consumption.costMicros);
      },
    };
    return reservations[0] ? { ok: true, ticket, reservedMicros: reservations[0].reservedMicros } : { ok: true, ticket };
  }

  async reservedMicros(id: string): Promise<number> {
    return this.#budgetGate.reservedMicros(id);
  }
}
