import {
  InMemoryAdmissionGate,
  type AdmissionGate,
  type AdmissionTicket,
  type GateAdmission,
  type GateRequest,
  type LedgerSpent,
} from '../admission/admission-gate.js';
import type { Consumption } from '../admission/consumption.js';
import { WINDOW_MS, wholeTokens } from '../admission/rate-limiter.js';
import { figuresOfAdmitReply, keepLatest, type KnownFigures } from './gate-known-figures.js';
import { GateSettleBatches } from './gate-settle-batches.js';
import { ADMIT_LUA, MERGE_LUA, RATE_MERGE_LUA, RESERVED_LUA, SETTLE_LUA } from './admission-scripts.js';
import type { RedisLink } from './redis-link.js';
import { redisScript, type RedisScript } from './redis-script.js';
import { taggedKey } from './tagged-key.js';

/** Longer than any request may last: a reservation still open after this was held by a replica that died. */
const DEFAULT_RESERVATION_LEASE_MS = 30 * 60 * 1000;
/** A key idle this long is forgotten by Redis and seeded from the ledger again when it returns. */
const BUDGET_IDLE_TTL_MS = 24 * 60 * 60 * 1000;
/** How long Redis remembers that a merge of outage spend or requests was applied, so a resend of it is not. */
const MERGE_MARKER_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * Settlements waiting for Redis past this many are dropped, oldest first (a dropped reservation is
 * released by its lease): memory stays bounded through an outage of any length.
 */
const MAX_PENDING_SETTLEMENTS = 10_000;
const UNKNOWN_SPEND = -1;

/** Requests of one key counted against its rpm by the local gate: when each was admitted (epoch ms, oldest first). */
interface LocalRequests {
  keyId: string;
  rpm: number;
  admittedAtMs: number[];
}

/** A settlement Redis has not confirmed: a shared reservation's, or spend or requests counted locally. */
type Pending =
  | { kind: 'settle'; keyId: string; reservationId: string; periodStartMs: number; costMicros: number }
  | { kind: 'merge'; keyId: string; mergeId: string; periodStartMs: number; costMicros: number }
  | ({ kind: 'rate-merge'; mergeId: string } & LocalRequests);

/**
 * The admission gate shared by every replica (docs/keys-and-budgets.md, "Across replicas"): one
 * script decides a request's rate limits and budget reservation atomically in Redis, one round
 * trip per request — two only for a key's first request of a budget period fleet-wide, when the
 * script asks for the ledger's sum. Settlement is one script call after the answer.
 *
 * While Redis is out of reach (the link is down, or a call fails) requests are admitted by a local
 * gate starting from the last figures Redis gave for each key; what they spend, and the requests
 * they were against the key's rpm, are added to the shared counters once Redis answers again,
 * exactly once (each merge carries an id Redis remembers), before admission is shared again.
 */
export class RedisAdmissionGate implements AdmissionGate {
  readonly #link: RedisLink;
  readonly #ledgerSpentMicros: LedgerSpent;
  readonly #admitScript: RedisScript;
  readonly #settleScript: RedisScript;
  readonly #mergeScript: RedisScript;
  readonly #rateMergeScript: RedisScript;
  readonly #reservedScript: RedisScript;
  readonly #known = new Map<string, KnownFigures>();
  /** Spend admitted locally and not yet sent to Redis, per key and period. */
  readonly #unmerged = new Map<string, { keyId: string; periodStartMs: number; costMicros: number }>();
  /** Requests admitted locally against a key's rpm and not yet sent to Redis, per key. */
  readonly #unmergedRequests = new Map<string, LocalRequests>();
  readonly #pending: Pending[] = [];
  /** Settlements gathered per key, and the calls on their way to Redis (`flush` waits for them). */
  readonly #settleBatches: GateSettleBatches;
  readonly #reservationLeaseMs: number;
  #local: InMemoryAdmissionGate;
  /** Keys whose last known levels the current local gate has taken. */
  #restored = new Set<string>();
  #lastId = 0;
  #flushing: Promise<void> = Promise.resolve();

  constructor(link: RedisLink, options: { ledgerSpentMicros: LedgerSpent; reservationLeaseMs?: number }) {
    this.#link = link;
    this.#ledgerSpentMicros = options.ledgerSpentMicros;
    this.#reservationLeaseMs = options.reservationLeaseMs ?? DEFAULT_RESERVATION_LEASE_MS;
    this.#admitScript = redisScript(link, 'gate_admit', 4, ADMIT_LUA);
    this.#settleScript = redisScript(link, 'gate_settle', 4, SETTLE_LUA);
    this.#mergeScript = redisScript(link, 'gate_merge', 2, MERGE_LUA);
    this.#rateMergeScript = redisScript(link, 'gate_rate_merge', 2, RATE_MERGE_LUA);
    this.#reservedScript = redisScript(link, 'gate_reserved', 3, RESERVED_LUA);
    this.#settleBatches = new GateSettleBatches({
      up: () => link.up,
      send: (keyId, groups) => this.#settleScript(this.#keysOf(keyId), [BUDGET_IDLE_TTL_MS, ...groups]),
    });
    this.#local = this.#newLocalGate();
    link.onResync(async () => {
      await this.flush();
      // The next outage starts from the figures Redis gives from now on.
      this.#local = this.#newLocalGate();
      this.#restored = new Set();
    });
  }

  async admit(request: GateRequest): Promise<GateAdmission> {
    if (!this.#link.up) return this.#admitLocally(request);
    const reservationId = this.#nextId();
    let reply = await this.#callAdmit(request, reservationId, UNKNOWN_SPEND);
    if (reply?.[0] === 'seed' && request.budget) {
      // The key's first request of the period fleet-wide: Redis needs the ledger's figure once.
      const seedMicros = await this.#ledgerSpentMicros(request.keyId, request.budget.periodStartMs);
      reply = await this.#callAdmit(request, reservationId, seedMicros);
    }
    if (!reply || reply[0] === 'seed') {
      // The script may have run before its reply was lost: release what it may have reserved, and
      // leave the request out of the rpm merge (Redis may have counted it).
      if (request.budget) this.#queue({ kind: 'settle', keyId: request.keyId, reservationId, periodStartMs: request.budget.periodStartMs, costMicros: 0 });
      return this.#admitLocally(request, { countedInRedis: 'maybe' });
    }
    this.#remember(request, reply);
    if (this.#pending.length > 0 || this.#unmerged.size > 0 || this.#unmergedRequests.size > 0) void this.flush().catch(() => undefined);
    const [verdict, detail] = reply;
    if (verdict === 'rpm' || verdict === 'tpm') return { ok: false, limit: verdict, retryAfterMs: Number(detail) };
    if (verdict === 'budget') return { ok: false, limit: 'budget', availableMicros: Number(detail) };
    const ticket = this.#sharedTicket(request, reservationId);
    return request.budget ? { ok: true, ticket, reservedMicros: Number(detail) } : { ok: true, ticket };
  }

  async reservedMicros(keyId: string): Promise<number> {
    const localMicros = await this.#local.reservedMicros(keyId);
    if (!this.#link.up) return localMicros;
    try {
      return Number(await this.#reservedScript(this.#keysOf(keyId).slice(1), [])) + localMicros;
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
    for (const spend of this.#unmerged.values()) this.#queue({ kind: 'merge', mergeId: this.#nextId(), ...spend });
    this.#unmerged.clear();
    for (const requests of this.#unmergedRequests.values()) this.#queue({ kind: 'rate-merge', mergeId: this.#nextId(), ...requests });
    this.#unmergedRequests.clear();
    const sending = this.#pending.splice(0);
    const results = await Promise.allSettled(sending.map((pending) => this.#send(pending)));
    const failed = sending.filter((_, index) => results[index]?.status === 'rejected');
    if (failed.length === 0) return;
    this.#pending.unshift(...failed);
    throw new Error(`Redis did not take ${failed.length} settlement(s); they are kept for the next try`);
  }

  #send(pending: Pending): Promise<unknown> {
    const keys = this.#keysOf(pending.keyId);
    if (pending.kind === 'rate-merge') {
      // Ages, not times: the fleet's clock is Redis's. A request past its minute counts for nothing.
      const nowMs = Date.now();
      const agesMs = pending.admittedAtMs.map((atMs) => Math.max(0, nowMs - atMs)).filter((ageMs) => ageMs < WINDOW_MS);
      if (agesMs.length === 0) return Promise.resolve();
      return this.#rateMergeScript([keys[0], this.#mergeMarker(pending)], [pending.rpm, MERGE_MARKER_TTL_MS, ...agesMs]);
    }
    if (pending.kind === 'merge') {
      return this.#mergeScript([keys[1], this.#mergeMarker(pending)], [pending.periodStartMs, pending.costMicros, MERGE_MARKER_TTL_MS]);
    }
    return this.#settleScript(keys, [BUDGET_IDLE_TTL_MS, 0, 0, pending.reservationId, pending.periodStartMs, pending.costMicros]);
  }

  async #callAdmit(request: GateRequest, reservationId: string, seedMicros: number): Promise<string[] | undefined> {
    const { budget } = request;
    try {
      const reply = await this.#admitScript(this.#keysOf(request.keyId), [
        request.rpm ?? 0,
        request.tpm ?? 0,
        wholeTokens(request.estimatedTokens),
        budget ? budget.budgetMicros : -1,
        budget ? budget.periodStartMs : 0,
        budget ? Math.max(0, Math.ceil(budget.maxCostMicros)) : 0,
        seedMicros === UNKNOWN_SPEND ? UNKNOWN_SPEND : Math.max(0, Math.round(seedMicros)),
        reservationId,
        this.#reservationLeaseMs,
        BUDGET_IDLE_TTL_MS,
        budget ? Math.max(0, Math.ceil(budget.minCostMicros ?? budget.maxCostMicros)) : 0,
      ]);
      return (reply as unknown[]).map(String);
    } catch {
      return undefined;
    }
  }

  #sharedTicket(request: GateRequest, reservationId: string): AdmissionTicket {
    const { keyId, tpm, budget } = request;
    const estimatedTokens = wholeTokens(request.estimatedTokens);
    let settled = false;
    return {
      settle: (consumption: Consumption) => {
        if (settled) return;
        settled = true;
        const extraTokens = tpm ? wholeTokens(consumption.tokens) - estimatedTokens : 0;
        if (!budget && extraTokens === 0) return;
        const costMicros = Math.max(0, Math.round(consumption.costMicros));
        const periodStartMs = budget?.periodStartMs ?? 0;
        const resend = () => {
          // Only the reservation is resent: sending it twice counts it once; a token correction would not.
          if (budget) this.#queue({ kind: 'settle', keyId, reservationId, periodStartMs, costMicros });
        };
        if (!this.#link.up) return resend();
        this.#settleBatches.add(keyId, [tpm ?? 0, extraTokens, budget ? reservationId : '', periodStartMs, costMicros], resend);
      },
    };
  }

  async #admitLocally(request: GateRequest, options: { countedInRedis?: 'maybe' } = {}): Promise<GateAdmission> {
    const local = this.#local;
    const known = this.#known.get(request.keyId);
    if (known && !this.#restored.has(request.keyId)) {
      this.#restored.add(request.keyId);
      local.rateLimiter.restore(request.keyId, known.levels);
    }
    const admission = await local.admit(request);
    // A request refused for its budget still took its place in the key's minute.
    const tookRpm = request.rpm !== null && (admission.ok || admission.limit === 'budget');
    if (tookRpm && options.countedInRedis === undefined) this.#countLocalRequest(request.keyId, request.rpm!, request.nowMs);
    if (!admission.ok) return admission;
    const { keyId, budget } = request;
    let settled = false;
    return {
      ...admission,
      ticket: {
        settle: (consumption, nowMs) => {
          if (settled) return;
          settled = true;
          admission.ticket.settle(consumption, nowMs);
          if (!budget || consumption.costMicros <= 0) return;
          const spendKey = `${keyId}\n${budget.periodStartMs}`;
          const unmerged = this.#unmerged.get(spendKey) ?? { keyId, periodStartMs: budget.periodStartMs, costMicros: 0 };
          unmerged.costMicros += Math.round(consumption.costMicros);
          this.#unmerged.set(spendKey, unmerged);
          if (this.#link.up) void this.flush().catch(() => undefined);
        },
      },
    };
  }

  /** Keeps the admission for the rpm merge; only the last minute's are kept (older ones count for nothing). */
  #countLocalRequest(keyId: string, rpm: number, nowMs: number): void {
    const requests = this.#unmergedRequests.get(keyId) ?? { keyId, rpm, admittedAtMs: [] };
    requests.rpm = rpm;
    requests.admittedAtMs.push(nowMs);
    const fresh = requests.admittedAtMs.findIndex((atMs) => nowMs - atMs < WINDOW_MS);
    if (fresh > 0) requests.admittedAtMs.splice(0, fresh);
    keepLatest(this.#unmergedRequests, keyId, requests);
  }

  #newLocalGate(): InMemoryAdmissionGate {
    return new InMemoryAdmissionGate({
      // A key Redis gave figures for starts from them; one never seen, from the ledger as ever.
      ledgerSpentMicros: async (keyId, sinceMs) => {
        const budget = this.#known.get(keyId)?.budget;
        return budget && budget.periodStartMs === sinceMs ? budget.committedMicros : this.#ledgerSpentMicros(keyId, sinceMs);
      },
    });
  }

  #remember(request: GateRequest, reply: readonly string[]): void {
    keepLatest(this.#known, request.keyId, figuresOfAdmitReply(request, reply));
  }

  #queue(pending: Pending): void {
    this.#pending.push(pending);
    if (this.#pending.length > MAX_PENDING_SETTLEMENTS) this.#pending.shift();
  }

  /** The key's four, under one hash tag (the scripts take them together). */
  #keysOf(keyId: string): [rate: string, budget: string, open: string, holds: string] {
    const key = (part: string) => taggedKey(this.#link, 'gate', keyId, part);
    return [key('rate'), key('budget'), key('open'), key('holds')];
  }

  /** Redis remembers a merge was applied here, under the key's tag: the merge scripts take it with the key's counters. */
  #mergeMarker(merge: { keyId: string; mergeId: string }): string {
    return taggedKey(this.#link, 'gate', merge.keyId, `merged:${merge.mergeId}`);
  }

  #nextId(): string {
    return `${this.#link.replicaId}:${++this.#lastId}`;
  }
}
