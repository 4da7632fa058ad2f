/**
 * How one drill step ended: `ok`; the failure kind of the target that did not answer;
 * `not_reached` when another target answered instead; or `skipped` (its connection was busy).
 */
export type DrillStepResult = string;

/** One request of a drill, as `GET /admin/drills` shows it (docs/drills-and-canaries.md). */
export interface DrillStep {
  route: string;
  /** `target`: the target alone; `chain`: the route with every target before this one failed on purpose. */
  step: 'target' | 'chain';
  /** 1-based, in the route's order of targets. */
  position: number;
  connection: string;
  model: string;
  result: DrillStepResult;
  /** The failure kind (`busy` for a skipped step); null when the step passed. */
  kind: string | null;
  /** What went wrong, secrets redacted; null when the step passed. */
  message: string | null;
  latency_ms: number;
  /** The step's request record (`GET /admin/requests/:id`), a skipped step's included. */
  request_id: string;
}

/** One drill: every step run so far, in order; `finished_at` null while it runs. */
export interface DrillRun {
  id: string;
  /** ISO 8601. */
  started_at: string;
  finished_at: string | null;
  steps: DrillStep[];
}

/** Whether a step is a finding: it neither passed nor was skipped for load. */
export function stepFailed(step: DrillStep): boolean {
  return step.result !== 'ok' && step.result !== 'skipped';
}
