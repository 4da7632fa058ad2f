import { InMemoryAdmissionGate, subjectsOf, type GateAdmission, type GateRequest, type GateSubject, type LedgerSpent } from '../admission/admission-gate.js';
import { WINDOW_MS } from '../admission/rate-limiter.js';
import { countersOf, type GateCounters } from './gate-counters.js';
import { figuresOfAdmitReply, keepLatest, type KnownFigures } from './gate-known-figures.js';

/** Requests of a key or a team counted against its rpm by the local gate: when each was admitted (epoch ms, oldest first). */
export interface LocalRequests {
  counters: GateCounters;
  rpm: number;
  admittedAtMs: number[];
}

/** What a key or a team spent on requests admitted by the local gate, in one budget period. */
export interface LocalSpend {
  counters: GateCounters;
  periodStartMs: number;
  costMicros: number;
}

/**
 * The shared admission gate's stand-in while Redis is out of reach (docs/keys-and-budgets.md,
 * "Across replicas"): a gate of this process, starting each key and team from the last figures
 * Redis gave for it (bucket levels, spend and reservations), or from the ledger for one Redis never
 * gave. What its requests spend, and the requests it counted against an rpm, are kept until they
 * are merged into the shared counters (`takeUnmerged`).
 */
export class OutageGate {
  readonly #ledgerSpentMicros: LedgerSpent;
  /** Called when spend was counted locally: it is to be merged as soon as Redis answers. */
  readonly #onSpend: () => void;
  readonly #known = new Map<string, KnownFigures>();
  /** Per subject and period. */
  readonly #unmerged = new Map<string, LocalSpend>();
  /** Per subject. */
  readonly #unmergedRequests = new Map<string, LocalRequests>();
  #local: InMemoryAdmissionGate;
  /** Keys and teams whose last known levels the current local gate has taken. */
  #restored = new Set<string>();

  constructor(options: { ledgerSpentMicros: LedgerSpent; onSpend: () => void }) {
    this.#ledgerSpentMicros = options.ledgerSpentMicros;
    this.#onSpend = options.onSpend;
    this.#local = this.#newLocalGate();
  }

  /** Keeps what Redis said of each of a request's subjects, for the next outage to start from. */
  remember(subjects: readonly GateSubject[], reply: readonly string[]): void {
    for (const [id, figures] of figuresOfAdmitReply(subjects, reply)) keepLatest(this.#known, id, figures);
  }

  /**
   * Admits on the local gate. `countedInRedis: 'maybe'`: the shared script may have run for this
   * request before its reply was lost, so the request is left out of the rpm merge.
   */
  async admit(request: GateRequest, options: { countedInRedis?: 'maybe' } = {}): Promise<GateAdmission> {
    const local = this.#local;
    const subjects = subjectsOf(request);
    const counters = countersOf(request, subjects);
    for (const { id } of subjects) {
      const known = this.#known.get(id);
      if (!known || this.#restored.has(id)) continue;
      this.#restored.add(id);
      local.rateLimiter.restore(id, known.levels);
    }
    const admission = await local.admit(request);
    // A request refused for a budget still took its place in every minute.
    if ((admission.ok || admission.limit === 'budget') && options.countedInRedis === undefined) {
      for (const [index, { rpm }] of subjects.entries()) if (rpm !== null) this.#countLocalRequest(counters[index]!, rpm, request.nowMs);
    }
    if (!admission.ok) return admission;
    let settled = false;
    return {
      ...admission,
      ticket: {
        settle: (consumption, nowMs) => {
          if (settled) return;
          settled = true;
          admission.ticket.settle(consumption, nowMs);
          if (consumption.costMicros <= 0 || !subjects.some(({ budget }) => budget)) return;
          for (const [index, { budget }] of subjects.entries()) if (budget) this.#countLocalSpend(counters[index]!, budget.periodStartMs, consumption.costMicros);
          this.#onSpend();
        },
      },
    };
  }

  /** What the local gate's requests of a key or a team hold back. */
  reservedMicros(id: string): Promise<number> {
    return this.#local.reservedMicros(id);
  }

  get hasUnmerged(): boolean {
    return this.#unmerged.size > 0 || this.#unmergedRequests.size > 0;
  }

  /** Hands over the spend and the requests counted locally so far, to be merged into Redis. */
  takeUnmerged(): { spend: LocalSpend[]; requests: LocalRequests[] } {
    const taken = { spend: [...this.#unmerged.values()], requests: [...this.#unmergedRequests.values()] };
    this.#unmerged.clear();
    this.#unmergedRequests.clear();
    return taken;
  }

  /** The next outage starts from the figures Redis gives from now on. */
  reset(): void {
    this.#local = this.#newLocalGate();
    this.#restored = new Set();
  }

  #countLocalSpend(counters: GateCounters, periodStartMs: number, costMicros: number): void {
    const spendKey = `${counters.tag}\n${counters.id}\n${periodStartMs}`;
    const unmerged = this.#unmerged.get(spendKey) ?? { counters, periodStartMs, costMicros: 0 };
    unmerged.costMicros += Math.round(costMicros);
    this.#unmerged.set(spendKey, unmerged);
  }

  /** Keeps the admission for the rpm merge; only the last minute's are kept (older ones count for nothing). */
  #countLocalRequest(counters: GateCounters, rpm: number, nowMs: number): void {
    const subjectKey = `${counters.tag}\n${counters.id}`;
    const requests = this.#unmergedRequests.get(subjectKey) ?? { counters, rpm, admittedAtMs: [] };
    requests.rpm = rpm;
    requests.admittedAtMs.push(nowMs);
    const fresh = requests.admittedAtMs.findIndex((atMs) => nowMs - atMs < WINDOW_MS);
    if (fresh > 0) requests.admittedAtMs.splice(0, fresh);
    keepLatest(this.#unmergedRequests, subjectKey, requests);
  }

  #newLocalGate(): InMemoryAdmissionGate {
    return new InMemoryAdmissionGate({
      // A key or team Redis gave figures for starts from them; one never seen, from the ledger as ever.
      ledgerSpentMicros: async (id, sinceMs) => {
        const budget = this.#known.get(id)?.budget;
        return budget && budget.periodStartMs === sinceMs ? budget.committedMicros : this.#ledgerSpentMicros(id, sinceMs);
      },
    });
  }
}
