import type { AttemptRecord } from '../core/attempt-record.js';
import { redactKeyShapes } from '../core/redact-key-shapes.js';
import type { SkippedTarget } from '../core/skipped-target.js';
import type { RequestOrigin } from '../core/request-origin.js';
import { microsToUsd } from '../metering/money.js';
import type { Usage } from '../core/usage.js';
import type { ResolvedTarget } from '../routing/resolve-route.js';
import type { AffinityOutcome, AttemptRecordEntry, RecordUsage, RequestRecord, RequestStatus, SkippedTargetEntry } from '../core/request-record.js';

const NO_COSTS: ReadonlyMap<number, number> = new Map();

/** A refused body's model can be anything up to the body limit; the record keeps this much of it. */
const MAX_RECORDED_MODEL_CHARS = 256;

/** The error a request ended with: its code, and the message and envelope type when it had them. */
export interface RecordedError {
  code: string;
  message?: string | null;
  type?: string;
}

/**
 * What the HTTP layer learns about one request as it goes (model, route, attempts, outcome),
 * turned into the stored record once the response has ended.
 */
export class RecordDraft {
  readonly id: string;
  readonly startedAtMs: number;
  /** As the caller sent it; the record keeps it with key shapes redacted (`toRecord`). */
  modelRequested: string | null = null;
  keyName: string | null = null;
  keyId: string | null = null;
  /** The key's team (its id). */
  teamId: string | null = null;
  route: string | null = null;
  routeLabel: string | null = null;
  stream = false;
  deadlineAtMs: number | null = null;
  idempotencyKey: string | null = null;
  attempts: readonly AttemptRecord[] = [];
  /** Planned targets passed over without an attempt. */
  skipped: readonly SkippedTarget[] | undefined;
  served: ResolvedTarget | null = null;
  /** Time spent waiting on purpose (backoff, Retry-After): not counted as gateway overhead. */
  readonly waited = { ms: 0 };
  httpStatus = 200;
  status: RequestStatus = 'ok';
  errorCode: string | null = null;
  /** What the caller was told when it got no answer (the error's message). */
  errorMessage: string | null = null;
  /** The error's type, as the OpenAI-shaped envelope names it, when the gateway answered with one. */
  errorType: string | null = null;
  /** When the first content went to the caller. */
  firstTokenAtMs: number | undefined;
  /** Who caused the request; the gateway's own traffic (drills, canaries, probes) says so. */
  origin: RequestOrigin = 'caller';
  /** Set for requests that are not chats (records show chat requests without it). */
  operation: 'embeddings' | 'responses' | undefined;
  /** Set for a `response.create` on a WebSocket; HTTP requests go without. */
  transport: 'websocket' | undefined;
  /** Tool types the answering target went without. */
  droppedTools: string[] | undefined;
  /** The output cap the key's budget lowered: the caller's (null: none set) and the one sent. */
  maxTokensClamped: { requested: number | null; sent: number } | undefined;
  /** Answered from a stored idempotent response: nothing was generated. */
  replayed = false;
  /** Whether a non-primary target of a named route served it; undefined when none did or no route applies. */
  fallback: boolean | undefined;
  /** The hash of the caller's session, when it named one. */
  session: string | undefined;
  /** How the target that served the session's request stands to its binding. */
  affinity: AffinityOutcome | undefined;

  constructor(id: string, startedAtMs: number) {
    this.id = id;
    this.startedAtMs = startedAtMs;
  }

  fail(status: RequestStatus, httpStatus: number, error: RecordedError): void {
    this.status = status;
    this.httpStatus = httpStatus;
    this.errorCode = error.code;
    this.errorMessage = error.message ?? null;
    this.errorType = error.type ?? null;
  }

  /**
   * What the body asks for, read from the JSON before validation can refuse it, so a refused
   * request's record still names the model and says whether it streamed.
   */
  noteAskedFor(json: unknown): void {
    if (typeof json !== 'object' || json === null) return;
    const { model, stream } = json as { model?: unknown; stream?: unknown };
    if (typeof model === 'string') {
      // Redacted before the cut, which could leave a key's head too short to look like one.
      this.modelRequested = model.length > MAX_RECORDED_MODEL_CHARS ? `${redactKeyShapes(model).slice(0, MAX_RECORDED_MODEL_CHARS)}…` : model;
    }
    this.stream = stream === true;
  }

  /** `costMicrosByAttempt`: the ledger's priced cost of each attempt (by attempt number). */
  toRecord(endedAtMs: number, costMicrosByAttempt: ReadonlyMap<number, number> = NO_COSTS): RequestRecord {
    const latencyMs = endedAtMs - this.startedAtMs;
    const upstreamMs = this.attempts.reduce((sum, attempt) => sum + attempt.latencyMs, 0);
    const servedAttempt = this.served ? this.attempts.at(-1) : undefined;
    const record: RequestRecord = {
      id: this.id,
      created_at: new Date(this.startedAtMs).toISOString(),
      origin: this.origin,
      status: this.status,
      http_status: this.httpStatus,
      key_name: this.keyName,
      team: this.teamId,
      // A caller can paste a key into `model`: every place a record goes (the store, the log, spans) gets it without.
      model_requested: this.modelRequested === null ? null : redactKeyShapes(this.modelRequested),
      route: this.route,
      served: this.served
        ? { connection: this.served.connectionName, provider: this.served.connection.provider, model: this.served.routedModel }
        : null,
      attempts: this.attempts.map((attempt) => toEntry(attempt, costMicrosByAttempt.get(attempt.n))),
      usage: servedAttempt?.usage ? toRecordUsage(servedAttempt.usage) : null,
      cost_usd: costMicrosByAttempt.size === 0 ? null : microsToUsd(sumOf(costMicrosByAttempt.values())),
      first_token_ms: this.firstTokenAtMs === undefined ? null : this.firstTokenAtMs - this.startedAtMs,
      latency_ms: latencyMs,
      added_latency_ms: Math.max(0, latencyMs - upstreamMs - this.waited.ms),
      deadline_ms: this.deadlineAtMs === null ? null : this.deadlineAtMs - this.startedAtMs,
      idempotency_key: this.idempotencyKey,
      stream: this.stream,
      error_code: this.errorCode,
      error_message: this.errorMessage,
    };
    // Assigned rather than spread in: this runs once per request, and each spread is an object made and copied.
    if (this.skipped !== undefined) record.skipped = this.skipped.map(toSkippedEntry);
    if (this.errorType !== null) record.error_type = this.errorType;
    if (this.origin === 'probe') record.probe = true;
    if (this.fallback !== undefined) record.fallback = this.fallback;
    if (this.operation !== undefined) record.operation = this.operation;
    if (this.transport !== undefined) record.transport = this.transport;
    if (this.droppedTools !== undefined) record.dropped_tools = this.droppedTools;
    if (this.maxTokensClamped !== undefined) record.max_tokens_clamped = this.maxTokensClamped;
    if (this.session !== undefined) record.session = this.session;
    if (this.affinity !== undefined) record.affinity = this.affinity;
    return record;
  }
}

/** Messages are stored as the provider wrote them here; the record store redacts secrets. */
function toEntry(attempt: AttemptRecord, costMicros: number | undefined): AttemptRecordEntry {
  const entry: AttemptRecordEntry = {
    n: attempt.n,
    connection: attempt.connection,
    provider: attempt.provider,
    model: attempt.model,
    kind: attempt.kind,
    http_status: attempt.httpStatus ?? null,
    error_type: attempt.errorType ?? null,
    message: attempt.message ?? null,
    retry_after_ms: attempt.retryAfterMs ?? null,
    started_ms: attempt.startedMs,
    latency_ms: attempt.latencyMs,
    first_token_ms: attempt.firstTokenMs ?? null,
    first_token_timeout_ms: attempt.firstTokenTimeoutMs ?? null,
    committed: attempt.committed,
    usage: attempt.usage ? toRecordUsage(attempt.usage) : null,
    cost_usd: costMicros === undefined ? null : microsToUsd(costMicros),
  };
  if (attempt.firstTokenSource !== undefined) entry.first_token_source = attempt.firstTokenSource;
  if (attempt.hedge) entry.hedge = true;
  if (attempt.thinkingDropped) entry.thinking_dropped = true;
  if (attempt.relay) entry.relay = true;
  return entry;
}

function toSkippedEntry(skip: SkippedTarget): SkippedTargetEntry {
  const entry: SkippedTargetEntry = { connection: skip.connection, model: skip.model, reason: skip.reason };
  if (skip.kind !== undefined) entry.kind = skip.kind;
  if (skip.untilMs !== undefined) entry.until_ms = skip.untilMs;
  return entry;
}

/** Summed where they are, rather than copied into an array first. */
function sumOf(values: Iterable<number>): number {
  let sum = 0;
  for (const value of values) sum += value;
  return sum;
}

function toRecordUsage(usage: Usage): RecordUsage {
  const record: RecordUsage = { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens };
  if (usage.cacheReadTokens !== undefined) record.cache_read_tokens = usage.cacheReadTokens;
  if (usage.cacheWriteTokens !== undefined) record.cache_write_tokens = usage.cacheWriteTokens;
  if (usage.cacheWrite1hTokens !== undefined) record.cache_write_1h_tokens = usage.cacheWrite1hTokens;
  if (usage.reasoningTokens !== undefined) record.reasoning_tokens = usage.reasoningTokens;
  if (usage.estimated) record.estimated = true;
  return record;
}
