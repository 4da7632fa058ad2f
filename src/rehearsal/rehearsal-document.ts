/**
 * A rehearsal's result as the command's `--json` prints it and `POST /admin/rehearsals` answers it
 * (docs/rehearse.md): plain data, which the dashboard reads too.
 */

/** One goal's verdict on a scenario; `advice` on a failing one only. */
export interface VerdictView {
  goal: string;
  pass: boolean;
  detail: string;
  advice?: string;
}

/** One caller's request of a scenario, as the JSON gives it. */
export interface RehearsalCallView {
  sent_at_ms: number;
  status: number;
  error_type: string | null;
  served_by: string | null;
  first_byte_ms: number | null;
  end_ms: number;
  answered: boolean;
  /** The gateway's attempts in order, each as its provider answered it. */
  attempts: RehearsalAttemptView[];
  cost_usd: number | null;
}

/** One upstream attempt of a call. */
export interface RehearsalAttemptView {
  target: string;
  /** The failure kind (docs/errors.md), `ok` for an attempt that answered. */
  kind: string;
  http_status: number | null;
  /** The provider's own error type or code. */
  error_type: string | null;
}

export interface RehearsalScenarioView {
  route: string;
  position: number;
  target: string;
  fault: string;
  /** What the caller asked: `chat` (streamed) or, on an embedding route, `embeddings`. */
  request: 'chat' | 'embeddings';
  pass: boolean;
  verdicts: VerdictView[];
  upstream_calls: number;
  calls: RehearsalCallView[];
}

/** A rehearsal as `--json` prints it and `POST /admin/rehearsals` answers it (schema in docs/rehearse.md). */
export interface RehearsalDocument {
  max_wait_s: number;
  duration_ms: number;
  scenarios_total: number;
  failed: number;
  scenarios: RehearsalScenarioView[];
}
