import { knownSecrets } from '../config/known-secrets.js';
import type { Cancellation } from '../core/cancellation.js';
import type { CanaryConfig, Config } from '../config/schema.js';
import { secretRedactor } from '../records/redact-secrets.js';
import { resolveRoute, type ResolvedRoute } from '../routing/resolve-route.js';
import { runGatewayRequest, type GatewayRequestDeps } from '../serving/run-gateway-request.js';
import { storeCall } from '../store/store-call.js';
import type { Alert } from '../telemetry/alert-sender.js';
import type { Metrics } from '../telemetry/metrics.js';
import { canaryPromptsPath, readCanaryPrompts, type CanaryPrompt } from './canary-prompts.js';
import type { CanaryPromptResult, CanaryRun } from './canary-run.js';
import { BASELINE_RUNS, type CanaryStore } from './canary-store.js';
import { gradingRequest } from './grading-request.js';
import { parseGrade } from './parse-grade.js';
import { similarityScore } from './similarity-score.js';

export interface CanaryDeps {
  config(): Config;
  /** Prompts files are relative to it. */
  configFile: string;
  gatewayRequests: GatewayRequestDeps;
  store: CanaryStore;
  metrics: Metrics;
  alert(alert: Alert): void;
}

/** The `canary_drop` alert: what dropped, to what, against what. */
export interface CanaryDropAlert extends Alert {
  type: 'canary_drop';
  route: string;
  score: number;
  baseline: number;
  max_drop: number;
  threshold: number;
  run_id: string;
}

/** Scores and thresholds are compared without float noise (0.8 − 0.1 is 0.7000000000000001). */
function withoutFloatNoise(value: number): number {
  return Math.round(value * 1e9) / 1e9;
}

/**
 * One run of a route's quality canary: reads its prompts file (so an edited file counts from the
 * next run, with no reload), sends every prompt through the whole route one at a time as a
 * caller's request would go (fallbacks included, origin `canary`), scores each answer, and keeps
 * the run. A prompt whose request or grading failed scores 0 and says why: a failing route drops
 * the score rather than leaving it. The first `BASELINE_RUNS` runs with no failed prompt learn an
 * `auto` baseline; a run is judged only once a baseline is known, and one below
 * `baseline − max_drop` raises `canary_drop`. Throws the cancellation's reason when aborted
 * part-way (the run is not kept: its mean would describe only some prompts).
 */
export async function runCanary(route: string, runId: string, cancellation: Cancellation, deps: CanaryDeps): Promise<CanaryRun> {
  const config = deps.config();
  const canary = config.canaries[route];
  if (!canary) throw new Error(`route ${route} has no canary`);
  const startedAtMs = Date.now();
  const prompts = readCanaryPrompts(canaryPromptsPath(deps.configFile, canary.prompts));
  const learned = await storeCall(deps.store.learnedBaseline(route));
  const baseline = canary.baseline === 'auto' ? learned.baseline : canary.baseline;
  // One config for the whole run, so a reload part-way does not mix two routes' answers in one mean.
  const scored = resolveRoute(config, route);
  const grader = typeof canary.scorer === 'object' ? resolveRoute(config, canary.scorer.grader_route) : undefined;

  // A run is kept and shown: a provider's error (or a grader's answer) quoted in it may hold a key.
  const redact = secretRedactor(knownSecrets(config));
  const results: CanaryPromptResult[] = [];
  for (const prompt of prompts) {
    if (cancellation.aborted) throw cancellation.reason;
    const result = await runPrompt(prompt, scored, grader, cancellation, deps.gatewayRequests);
    results.push(result.error === undefined ? result : { ...result, error: redact(result.error) });
  }
  if (cancellation.aborted) throw cancellation.reason;

  const score = results.reduce((sum, result) => sum + result.score, 0) / results.length;
  const threshold = baseline === null ? null : withoutFloatNoise(baseline - canary.max_drop);
  const run: CanaryRun = {
    id: runId,
    route,
    started_at: new Date(startedAtMs).toISOString(),
    finished_at: new Date().toISOString(),
    score,
    baseline,
    threshold,
    dropped: threshold !== null && withoutFloatNoise(score) < threshold,
    prompts: results,
  };
  await storeCall(deps.store.addRun(run));
  if (learnsBaseline(canary, learned.runs, results)) await storeCall(deps.store.learnFrom(run));
  deps.metrics.canaryScore.set({ route }, score);
  if (run.dropped) deps.alert(dropAlert(run, canary));
  return run;
}

/** A baseline describes the route working: learned only from runs in which every prompt was answered (and graded). */
function learnsBaseline(canary: CanaryConfig, learnedRuns: number, results: readonly CanaryPromptResult[]): boolean {
  return canary.baseline === 'auto' && learnedRuns < BASELINE_RUNS && results.every((result) => result.error === undefined);
}

async function runPrompt(
  prompt: CanaryPrompt,
  route: ResolvedRoute,
  grader: ResolvedRoute | undefined,
  cancellation: Cancellation,
  deps: GatewayRequestDeps,
): Promise<CanaryPromptResult> {
  const answered = await runGatewayRequest({ origin: 'canary', route, request: prompt.request, cancellation }, deps);
  const base = { index: prompt.index, request_id: answered.record.id };
  if (!answered.ok) return { ...base, score: 0, served: null, error: `request failed: ${answered.kind}: ${answered.message}` };
  const served = `${answered.served.connectionName}/${answered.served.routedModel}`;
  if (!grader) return { ...base, score: similarityScore(answered.text, prompt.reference), served };

  const graded = await runGatewayRequest(
    { origin: 'canary', route: grader, request: gradingRequest(prompt.request.messages, prompt.reference, answered.text), cancellation },
    deps,
  );
  const gradedBase = { ...base, served, grader_request_id: graded.record.id };
  if (!graded.ok) return { ...gradedBase, score: 0, error: `grading failed: ${graded.kind}: ${graded.message}` };
  const grade = parseGrade(graded.text);
  if (!grade.ok) return { ...gradedBase, score: 0, error: `grading failed: ${grade.message}` };
  return { ...gradedBase, score: grade.grade / 10 };
}

function dropAlert(run: CanaryRun, canary: CanaryConfig): CanaryDropAlert {
  const baseline = run.baseline!;
  const threshold = run.threshold!;
  return {
    type: 'canary_drop',
    route: run.route,
    score: run.score,
    baseline,
    max_drop: canary.max_drop,
    threshold,
    run_id: run.id,
    reason: `canary score ${run.score.toFixed(3)} is below ${threshold.toFixed(3)} (baseline ${baseline.toFixed(3)} − max_drop ${canary.max_drop})`,
    since: run.started_at,
  };
}
