import {
  refusedBy,
  subjectsOf,
  type AdmissionGate,
  type AdmissionTicket,
  type GateAdmission,
  type GateRequest,
  type GateSubject,
  type LedgerSpent,
} from '../admission/admission-gate.js';
import type { Consumption } from '../admission/consumption.js';
import { WINDOW_MS, wholeTokens } from '../admission/rate-limiter.js';
import { ADMIT_LUA, MERGE_LUA, RATE_MERGE_LUA, RESERVED_LUA, SETTLE_LUA } from './admission-scripts.js';
import { counterKeys, countersById, countersOf, mergeMarker, type CounterKeys } from './gate-counters.js';
import { OutageGate, type LocalRequests, type LocalSpend } from './gate-outage.js';
import { GateSettleBatches } from './gate-settle-batches.js';
import type { RedisLink } from './redis-link.js';
import { redisScript, type RedisScript } from './redis-script.js';

/** Longer than any request may last: a reservation still open after this was held by a replica that died. */
const DEFAULT_RESERVATION_LEASE_MS = 30 * 60 * 1000;
/** A key or team idle this long is forgotten by Redis and seeded from the ledger again when it returns. */
const BUDGET_IDLE_TTL_MS = 24 * 60 * 60 * 1000;
/** How long Redis remembers that a merge of outage spend or requests was applied, so a resend of it is not. */
const MERGE_MARKER_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * Settlements waiting for Redis past this many are dropped, oldest first (a dropped reservation is
 * released by its lease): memory stays bounded through an outage of any length.
 */
const MAX_PENDING_SETTLEMENTS = 10_000;
const UNKNOWN_SPEND = -1;

/** A settlement Redis has not confirmed: a shared reservation's, or spend or requests counted locally. */
type Pending =
  | { kind: 'settle'; keys: CounterKeys; reservationId: string; periodStartMs: number; costMicros: number }
  | ({ kind: 'merge'; mergeId: string } & LocalSpend)
  | ({ kind: 'rate-merge'; mergeId: string } & LocalRequests);

/**
 * The admission gate shared by every replica (docs/keys-and-budgets.md, "Across replicas"): one
 * script decides a request's rate limits and budget reservation atomically in Redis, for its key
 * and its team at once, one round trip per request — two only for a first request of a budget
 * period fleet-wide (the key's, its team's or both), when the script asks for the ledger's sums.
 * Settlement is one script call after the answer (one per key, and one per team, per batch).
 *
 * While Redis is out of reach (the link is down, or a call fails) requests are admitted by the
 * outage gate (gate-outage.ts); what they spend, and the requests they were against an rpm, are
 * added to the shared counters once Redis answers again, exactly once (each merge carries an id
 * Redis remembers), before admission is shared again.
 */
export class RedisAdmissionGate implements AdmissionGate {
  readonly #link: RedisLink;
  readonly #ledgerSpentMicros: LedgerSpent;
  readonly #admitScript: RedisScript;
  readonly #admitTeamScript: RedisScript;
  readonly #settleScript: RedisScript;
  readonly #mergeScript: RedisScript;
  readonly #rateMergeScript: RedisScript;
  readonly #reservedScript: RedisScript;
  readonly #outage: OutageGate;
  readonly #pending: Pending[] = [];
  /** Settlements gathered per key or team, and the calls on their way to Redis (`flush` waits for them). */
  readonly #settleBatches: GateSettleBatches;
  readonly #reservationLeaseMs: number;
  #lastId = 0;
  #flushing: Promise<void> = Promise.resolve();

  constructor(link: RedisLink, options: { ledgerSpentMicros: LedgerSpent; reservationLeaseMs?: number }) {
    this.#link = link;
    this.#ledgerSpentMicros = options.ledgerSpentMicros;
    this.#reservationLeaseMs = options.reservationLeaseMs ?? DEFAULT_RESERVATION_LEASE_MS;
    this.#admitScript = redisScript(link, 'gate_admit', 4, ADMIT_LUA);
    this.#admitTeamScript = redisScript(link, 'gate_admit_team', 8, ADMIT_LUA);
    this.#settleScript = redisScript(link, 'gate_settle', 4, SETTLE_LUA);
    this.#mergeScript = redisScript(link, 'gate_merge', 2, MERGE_LUA);
    this.#rateMergeScript = redisScript(link, 'gate_rate_merge', 2, RATE_MERGE_LUA);
    this.#reservedScript = redisScript(link, 'gate_reserved', 3, RESERVED_LUA);
    this.#settleBatches = new GateSettleBatches({
      up: () => link.up,
      send: (keys, groups) => this.#settleScript(keys, [BUDGET_IDLE_TTL_MS, ...groups]),
    });
    this.#outage = new OutageGate({
      ledgerSpentMicros: options.ledgerSpentMicros,
      onSpend: () => {
        if (this.#link.up) void this.flush().catch(() => undefined);
      },
    });
    link.onResync(async () => {
      await this.flush();
      this.#outage.reset();
    });
  }

  async admit(request: GateRequest): Promise<GateAdmission> {
    if (!this.#link.up) return this.#outage.admit(request);
    const subjects = subjectsOf(request);
    const keys = countersOf(request, subjects).map((counters) => counterKeys(this.#link, counters));
    const reservationId = this.#nextId();
    let reply = await this.#callAdmit(request, subjects, keys, reservationId, []);
    if (reply?.[0] === 'seed') {
      // A first request of the period fleet-wide: Redis needs the ledger's figure once for each budget it named.
      const unseeded = new Set(reply.slice(1));
      const seeds = await Promise.all(
        subjects.map(({ id, budget }, index) => (budget && unseeded.has(String(index + 1)) ? this.#ledgerSpentMicros(id, budget.periodStartMs) : UNKNOWN_SPEND)),
      );
      reply = await this.#callAdmit(request, subjects, keys, reservationId, seeds);
    }
    if (!reply || reply[0] === 'seed') {
      // The script may have run before its reply was lost: release what it may have reserved, and
      // leave the request out of the rpm merge (Redis may have counted it).
      subjects.forEach(({ budget }, index) => {
        if (budget) this.#queue({ kind: 'settle', keys: keys[index]!, reservationId, periodStartMs: budget.periodStartMs, costMicros: 0 });
      });
      return this.#outage.admit(request, { countedInRedis: 'maybe' });
    }
    this.#outage.remember(subjects, reply);
    if (this.#pending.length > 0 || this.#outage.hasUnmerged) void this.flush().catch(() => undefined);
    const [verdict, detail, , by] = reply;
    const refused = refusedBy(subjects[Number(by) - 1]);
    if (verdict === 'rpm' || verdict === 'tpm') return { ok: false, limit: verdict, retryAfterMs: Number(detail), ...refused };
    if (verdict === 'budget') return { ok: false, limit: 'budget', availableMicros: Number(detail), ...refused };
    const ticket = this.#sharedTicket(request, subjects, keys, reservationId);
    return subjects.some(({ budget }) => budget) ? { ok: true, ticket, reservedMicros: Number(detail) } : { ok: true, ticket };
  }

  async reservedMicros(id: string, teamId?: string | null): Promise<number> {
    const localMicros = await this.#outage.reservedMicros(id);
    if (!this.#link.up) return localMicros;
    try {
      return Number(await this.#reservedScript(counterKeys(this.#link, countersById(id, teamId)).slice(1), [])) + localMicros;
    } catch {
      return localMicros;
    }
  }

  /**
   * Sends Redis every settlement it has not confirmed and the spend counted locally; resolves once
   * all of it is applied, rejects (keeping what failed for the next try) when Redis did not answer.
   */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.catch(() => undefined).then(() => this.#flushNow());
    return this.#flushing;
  }

  async #flushNow(): Promise<void> {
    this.#settleBatches.sendNow();
    await this.#settleBatches.sent();
    const { spend, requests } = this.#outage.takeUnmerged();
    for (const each of spend) this.#queue({ kind: 'merge', mergeId: this.#nextId(), ...each });
    for (const each of requests) this.#queue({ kind: 'rate-merge', mergeId: this.#nextId(), ...each });
    const sending = this.#pending.splice(0);
    const results = await Promise.allSettled(sending.map((pending) => this.#send(pending)));
    const failed = sending.filter((_, index) => results[index]?.status === 'rejected');
    if (failed.length === 0) return;
    this.#pending.unshift(...failed);
    throw new Error(`Redis did not take ${failed.length} settlement(s); they are kept for the next try`);
  }

  #send(pending: Pending): Promise<unknown> {
    if (pending.kind === 'settle') {
      return this.#settleScript(pending.keys, [BUDGET_IDLE_TTL_MS, 0, 0, pending.reservationId, pending.periodStartMs, pending.costMicros]);
    }
    const [rate, budget] = counterKeys(this.#link, pending.counters);
    const marker = mergeMarker(this.#link, pending.counters, pending.mergeId);
    if (pending.kind === 'merge') return this.#mergeScript([budget, marker], [pending.periodStartMs, pending.costMicros, MERGE_MARKER_TTL_MS]);
    // Ages, not times: the fleet's clock is Redis's. A request past its minute counts for nothing.
    const nowMs = Date.now();
    const agesMs = pending.admittedAtMs.map((atMs) => Math.max(0, nowMs - atMs)).filter((ageMs) => ageMs < WINDOW_MS);
    if (agesMs.length === 0) return Promise.resolve();
    return this.#rateMergeScript([rate, marker], [pending.rpm, MERGE_MARKER_TTL_MS, ...agesMs]);
  }

  /** `seeds`: the ledger's spend per subject (`UNKNOWN_SPEND` or absent: not read). */
  async #callAdmit(request: GateRequest, subjects: readonly GateSubject[], keys: readonly CounterKeys[], reservationId: string, seeds: readonly number[]): Promise<string[] | undefined> {
    // Every budget of the request holds the same reservation: the costs are the request's.
    const cost = subjects.find(({ budget }) => budget)?.budget;
    const args: (string | number)[] = [
      wholeTokens(request.estimatedTokens),
      cost ? Math.max(0, Math.ceil(cost.maxCostMicros)) : 0,
      cost ? Math.max(0, Math.ceil(cost.minCostMicros ?? cost.maxCostMicros)) : 0,
      reservationId,
      this.#reservationLeaseMs,
      BUDGET_IDLE_TTL_MS,
    ];
    subjects.forEach(({ rpm, tpm, budget }, index) => {
      const seed = seeds[index] ?? UNKNOWN_SPEND;
      args.push(rpm ?? 0, tpm ?? 0, budget ? budget.budgetMicros : -1, budget ? budget.periodStartMs : 0, seed === UNKNOWN_SPEND ? seed : Math.max(0, Math.round(seed)));
    });
    try {
      const script = keys.length === 1 ? this.#admitScript : this.#admitTeamScript;
      const reply = await script(keys.flat(), args);
      return (reply as unknown[]).map(String);
    } catch {
      return undefined;
    }
  }

  #sharedTicket(request: GateRequest, subjects: readonly GateSubject[], keys: readonly CounterKeys[], reservationId: string): AdmissionTicket {
    const estimatedTokens = wholeTokens(request.estimatedTokens);
    let settled = false;
    return {
      settle: (consumption: Consumption) => {
        if (settled) return;
        settled = true;
        const costMicros = Math.max(0, Math.round(consumption.costMicros));
        subjects.forEach(({ tpm, budget }, index) => {
          const extraTokens = tpm ? wholeTokens(consumption.tokens) - estimatedTokens : 0;
          if (!budget && extraTokens === 0) return;
          const periodStartMs = budget?.periodStartMs ?? 0;
          const resend = () => {
            // Only the reservation is resent: sending it twice counts it once; a token correction would not.
            if (budget) this.#queue({ kind: 'settle', keys: keys[index]!, reservationId, periodStartMs, costMicros });
          };
          if (!this.#link.up) return resend();
          this.#settleBatches.add(keys[index]!, [tpm ?? 0, extraTokens, budget ? reservationId : '', periodStartMs, costMicros], resend);
        });
      },
    };
  }

  #queue(pending: Pending): void {
    this.#pending.push(pending);
    if (this.#pending.length > MAX_PENDING_SETTLEMENTS) this.#pending.shift();
  }

  #nextId(): string {
    return `${this.#link.replicaId}:${++this.#lastId}`;
  }
}
