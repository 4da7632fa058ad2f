import type { AdmissionHandle } from '../admission/admit-request.js';
import type { Config } from '../config/schema.js';
import type { Cancellation } from '../core/cancellation.js';
import type { IdempotencyEntry } from '../idempotency/idempotency-store.js';
import type { Principal } from '../keys/authenticate.js';
import type { RecordDraft } from '../records/record-draft.js';
import type { ResolvedRoute } from '../routing/resolve-route.js';
import type { SessionBinding } from '../routing/session-affinity.js';

/** What is known of a request from the moment it arrives, whatever becomes of it. */
export interface RequestStart {
  /**
   * The config snapshot in force when the request arrived. Everything the request decides —
   * gate, admission, failure body, pricing, settlement, fallback share — reads this one, so a
   * reload while it runs cannot price its reservation and its settlement from two configs.
   */
  readonly config: Config;
  /** The record being built; it becomes the stored record at the end. */
  readonly draft: RecordDraft;
  /** Aborts when the caller closes its connection before its answer is finished. */
  readonly caller: Cancellation;
}

/** An `Idempotency-Key` this request holds: completed with its answer, or abandoned at the end. */
export interface IdempotencyClaim {
  entry: IdempotencyEntry;
  upstreamKey: string;
  completed: boolean;
}

/** A request past the gate: made once there, and read by everything after it. */
export interface RequestContext extends RequestStart {
  readonly principal: Principal;
  readonly route: ResolvedRoute;
  readonly deadlineAtMs: number;
  /** Settled, always, by `finishRequest`. */
  readonly admission: AdmissionHandle;
  readonly idempotency: IdempotencyClaim | undefined;
  /**
   * The caller's session as it sent it (`x-switchyard-session`, `x-claude-code-session-id`,
   * `session-id`, `prompt_cache_key` or Claude Code's `metadata.user_id`; docs/sessions.md);
   * undefined when it named none. It may be a user's id: records, logs and shared state keep only
   * its hash.
   */
  readonly sessionId: string | undefined;
  /** The session's binding on the route; undefined without a session or with `affinity: off`. */
  readonly sessionBinding: SessionBinding | undefined;
}
