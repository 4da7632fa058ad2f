/** A request record as `GET /admin/requests` and `GET /admin/requests/:id` give it. */
export interface AttemptEntry {
  n: number;
  connection: string;
  provider: string;
  model: string;
  kind: string;
  http_status: number | null;
  error_type: string | null;
  message: string | null;
  retry_after_ms: number | null;
  started_ms: number;
  latency_ms: number;
  first_token_ms: number | null;
  committed: boolean;
  cost_usd: number | null;
  hedge?: boolean;
  first_token_timeout_ms?: number | null;
}

/** A planned target the request passed over without an attempt. */
export interface SkippedEntry {
  connection: string;
  model: string;
  reason: string;
  /** Epoch milliseconds when its time out ends, when known. */
  until_ms?: number;
}

export interface RequestRecord {
  id: string;
  created_at: string;
  origin?: string;
  status: string;
  http_status: number;
  key_name: string | null;
  model_requested: string | null;
  route: string | null;
  served: { connection: string; provider: string; model: string } | null;
  attempts: AttemptEntry[];
  skipped?: SkippedEntry[];
  cost_usd: number | null;
  first_token_ms: number | null;
  latency_ms: number;
  added_latency_ms: number;
  deadline_ms: number | null;
  stream: boolean;
  error_code: string | null;
  error_message: string | null;
  fallback?: boolean;
}
