import type { FirstTokenSource } from '../core/attempt-record.js';
import type { FailureKind } from '../core/failure-kind.js';
import type { DeploymentState } from '../health/deployment-state.js';
import type { QuotaSnapshot } from '../health/quota-headers.js';
import type { StructuralCause } from '../health/structural-fault.js';

/**
 * `GET /admin/health` as it answers (docs/health.md). Declared once, here: the dashboard and the
 * tests import these types (type-only), so they cannot drift from what the gateway sends.
 */
export interface AdminHealthResponse {
  data: DeploymentHealthView[];
}

/** One deployment: every field is present on every row, null when it does not apply. */
export interface DeploymentHealthView {
  /** `connection/model`. */
  deployment: string;
  connection: string;
  model: string;
  state: DeploymentState;
  /** When the state began (for `half_open`, when the ejection ended); null while nothing has happened to it. */
  since: string | null;
  /** Why it is in its state: the fault, the trip, the 429 and its Retry-After, the wait for a trial. */
  reason: string;
  structural_cause: StructuralCause | null;
  /** When its ejection ends, or ended (`half_open`). */
  ejected_until: string | null;
  consecutive_ejections: number;
  /** When this process last sent it a request: a caller's, the gateway's own, or a probe. */
  last_tried_at: string | null;
  next_probe_at: string | null;
  cooling_until: string | null;
  /** What cooled it; null when it is not cooling, or another replica of an older version did not say. */
  cooling_cause: CoolingCauseView | null;
  last_error: { kind: FailureKind; message: string; at: string } | null;
  quota: QuotaSnapshot | null;
  first_token: FirstTokenView;
  /** Per route naming the deployment: whether that route takes it as a model change (docs/lifecycle.md, model changes). */
  model_change: Record<string, ModelChangeView>;
}

export interface ModelChangeView {
  value: boolean;
  /** True when the config does not write `model_change` and the model catalog decided. */
  inferred: boolean;
}

export interface CoolingCauseView {
  kind: FailureKind;
  http_status: number | null;
  /** The wait the provider asked for, before the 5-minute cap; null when it named none (30 s applied). */
  retry_after_ms: number | null;
}

/** This process's first-token samples of the deployment, and the first-token timeout each route naming it gives. */
export interface FirstTokenView {
  samples: number;
  p99_ms: number | null;
  typical_input_tokens: number | null;
  timeout_ms: Record<string, number>;
  /** Per route, where that timeout comes from: `configured`, `own`, `same_model`, `connection`, `route`, `cold` or `maximum`. */
  source: Record<string, FirstTokenSource>;
}
