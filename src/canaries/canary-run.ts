/** How one prompt of a canary run went. */
export interface CanaryPromptResult {
  /** 0-based line order of the prompts file, blank lines not counted. */
  index: number;
  /** In 0..1; 0 when the request or its grading failed. */
  score: number;
  /** `<connection>/<model>` of the target that answered; null when none did. */
  served: string | null;
  request_id: string;
  /** The grader route's request, for a graded prompt whose answer reached it. */
  grader_request_id?: string;
  /** Why the score is 0 when no answer, or no grade, was had. */
  error?: string;
}

/** One run of a route's quality canary, as `GET /admin/canaries` and `POST /admin/canaries` show it. */
export interface CanaryRun {
  /** `cnr_…` */
  id: string;
  route: string;
  started_at: string;
  finished_at: string;
  /** The mean of the prompts' scores. */
  score: number;
  /** The baseline the run was judged against; null while an `auto` baseline is still being learned. */
  baseline: number | null;
  /** `baseline − max_drop`; null with no baseline. */
  threshold: number | null;
  /** Whether the score fell below the threshold (a `canary_drop` alert). */
  dropped: boolean;
  prompts: CanaryPromptResult[];
}
