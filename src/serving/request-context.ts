import type { AdmissionHandle } from '../admission/admit-request.js';
import type { Config } from '../config/schema.js';
import type { Cancellation } from '../core/cancellation.js';
import type { IdempotencyEntry } from '../idempotency/idempotency-store.js';
import type { Principal } from '../keys/authenticate.js';
import type { RecordDraft } from '../records/record-draft.js';
import type { ResolvedRoute } from '../routing/resolve-route.js';

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
}
