import type { FirstTokenSource } from './attempt-record.js';
import type { FailureKind } from './failure-kind.js';
import type { AttemptFailureKind } from './failure-policy.js';
import type { RequestOrigin } from './request-origin.js';
import type { SkipReason } from './skipped-target.js';

/** Token counts as records and the admin API show them (snake_case, like the rest of the API). */
export interface RecordUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  /** Of `cache_write_tokens`, those written to the 1-hour cache (billed above 5-minute writes). */
  cache_write_1h_tokens?: number;
  reasoning_tokens?: number;
  /** Counted by the gateway because the stream died before the provider reported usage. */
  estimated?: boolean;
}

export interface AttemptRecordEntry {
  n: number;
  connection: string;
  provider: string;
  model: string;
  kind: FailureKind;
  http_status: number | null;
  error_type: string | null;
  /** The provider's message, secrets redacted. */
  message: string | null;
  retry_after_ms: number | null;
  /** Offset from the start of the request. */
  started_ms: number;
  latency_ms: number;
  first_token_ms: number | null;
  /** The first-token timeout the attempt ran under (a route's number, or what `auto` made of it). */
  first_token_timeout_ms: number | null;
  /** Where that timeout came from (docs/lifecycle.md, learned first-token timeouts); absent on records made before it was kept. */
  first_token_source?: FirstTokenSource;
  /** Present (true) only on an attempt started beside a slow one (a route's `hedge`). */
  hedge?: true;
  /** Present (true) only on an attempt sent without the earlier turns' thinking after its target refused a block another home signed. */
  thinking_dropped?: true;
  /** Present (true) only on an attempt relayed in the caller's own wire format rather than translated. */
  relay?: true;
  committed: boolean;
  usage: RecordUsage | null;
  cost_usd: number | null;
}

/** A planned target the request passed over without an attempt, and why. */
export interface SkippedTargetEntry {
  connection: string;
  model: string;
  reason: SkipReason;
  /**
   * The failure kind the skip stands for: cooling `rate_limit`, ejected the kind that ejected it,
   * structural its cause's kind, context_window `context_length`; absent for busy, and on records
   * made before it was kept.
   */
  kind?: AttemptFailureKind;
  /** Epoch milliseconds when its time out ends, when known. */
  until_ms?: number;
}

/**
 * How the request ended for the caller: `ok` (an answer), `interrupted` (a committed stream that
 * failed), `failed` (every attempt failed), `rejected` (refused by the gateway before any
 * provider), `cancelled` (the caller went away).
 */
export type RequestStatus = 'ok' | 'interrupted' | 'failed' | 'rejected' | 'cancelled';

/**
 * How the target that served a session's request stands to the session's binding (docs/sessions.md):
 * `new` (it had none), `bound` (the target it was bound to served), `moved` (another target served,
 * and the session is bound to that one now).
 */
export type AffinityOutcome = 'new' | 'bound' | 'moved';

/** One request with every attempt (docs/operations.md): what `GET /admin/requests/:id` returns. */
export interface RequestRecord {
  id: string;
  /** ISO 8601. */
  created_at: string;
  origin: RequestOrigin;
  status: RequestStatus;
  http_status: number;
  key_name: string | null;
  /** The id of the key's team; null without a key or a team (and on records stored before teams, read back). */
  team: string | null;
  model_requested: string | null;
  route: string | null;
  served: { connection: string; provider: string; model: string } | null;
  attempts: AttemptRecordEntry[];
  /** Planned targets passed over without an attempt (ejected, cooling, structural, busy, context_window); absent when none were. */
  skipped?: SkippedTargetEntry[];
  usage: RecordUsage | null;
  cost_usd: number | null;
  first_token_ms: number | null;
  latency_ms: number;
  /** Gateway time: the request's latency minus the time spent waiting on upstreams. */
  added_latency_ms: number;
  /** The deadline the request ran under, relative to its start. */
  deadline_ms: number | null;
  idempotency_key: string | null;
  stream: boolean;
  /** Set on gateway-raised errors and final errors: the `code` the caller saw. */
  error_code: string | null;
  /** The error message the caller saw, secrets redacted; null when it got an answer. */
  error_message: string | null;
  /**
   * The error's `type` as the OpenAI-shaped envelope names it (`invalid_request_error`,
   * `rate_limit_error`, `upstream_error`, …); absent when the gateway sent no error envelope (an
   * answer, a cancelled or cut stream, a probe) and on records made before it was kept.
   */
  error_type?: string;
  /** An active health probe of a faulted deployment, not a caller's request (docs/health.md). */
  probe?: true;
  /**
   * Served on a named route: true when by a target other than its primary (the first target,
   * or for `strategy: weighted` one of the first tier); absent when nothing served it or the
   * request named a `connection/model` directly.
   */
  fallback?: boolean;
  /**
   * `embeddings` for `POST /v1/embeddings`, `responses` for `POST /v1/responses`; absent for chat
   * (`/v1/chat/completions`, `/v1/messages`).
   */
  operation?: 'embeddings' | 'responses';
  /** `websocket` for a `response.create` sent on a WebSocket to `/v1/responses`; absent for HTTP. */
  transport?: 'websocket';
  /**
   * Tool types the answering target could not take and went without (Responses API hosted tools
   * on a translated target), as `x-switchyard-dropped-tools` named them; absent when none were.
   */
  dropped_tools?: string[];
  /**
   * The key's budget could not pay the request's output cap and lowered it (a route's
   * `budget_fit: clamp`): the caller's `max_tokens` (null: it set none) and the one sent upstream,
   * as `x-switchyard-max-tokens` said; absent when nothing was lowered.
   */
  max_tokens_clamped?: { requested: number | null; sent: number };
  /** The caller's session as a hash (never the id itself); absent when the request named none (docs/sessions.md). */
  session?: string;
  /** Set when a target served a session's request on a route with affinity on. */
  affinity?: AffinityOutcome;
}

/** Where finished request records go. `enqueue` never blocks the request path. */
export interface RecordSink {
  enqueue(record: RequestRecord): void;
  /** Resolves once everything enqueued so far is durably written. */
  flush(): Promise<void>;
}
