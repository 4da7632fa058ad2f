import type { Config } from '../config/schema.js';
import { FAULTS, FLAP_DOWN_MS } from './faults.js';
import { operatorsName, type CallerView, type ScenarioOutcome } from './run-scenario.js';

/** The goals every scenario is judged against (docs/rehearse.md). */
export const GOALS = ['answered', 'first_byte', 'charged_once', 'honest', 'no_retry_on_quota', 'back_in_service'] as const;
export type Goal = (typeof GOALS)[number];

/** A flapping primary must serve again this soon after it has recovered. */
const BACK_IN_SERVICE_MS = 5_000;

export interface Verdict {
  goal: Goal;
  pass: boolean;
  /** What was seen, in a few words. */
  detail: string;
  /** For a failing verdict: the one change to the config that would make it pass. */
  advice?: string;
}

export interface JudgedScenario extends ScenarioOutcome {
  verdicts: Verdict[];
  pass: boolean;
}

/**
 * The scenario's verdicts: the caller answered (another target could have served); its first
 * byte within `maxWaitMs`; never two whole answers billed for one; honest after the commit point
 * (no stream ended as if whole that was not); no caller told to retry against a quota; a
 * flapping primary back in service within 5 s of recovering. A goal a scenario cannot show (a
 * quota goal without a quota, or with a target on another connection a retry may find well; a
 * recovery of a target that is not the primary) is left out.
 */
export function judgeScenario(outcome: ScenarioOutcome, config: Config, maxWaitMs: number): JudgedScenario {
  const { scenario, calls } = outcome;
  const route = config.routes[scenario.route]!;
  const verdicts: Verdict[] = [];
  const unanswered = calls.filter((call) => !call.answered);
  verdicts.push({
    goal: 'answered',
    pass: unanswered.length === 0,
    detail: unanswered.length === 0 ? answeredBy(calls) : `${unanswered.length} of ${calls.length} unanswered (${unanswered[0]!.status}${unanswered[0]!.errorType ? ` ${unanswered[0]!.errorType}` : ''})`,
    ...(unanswered.length === 0 ? {} : { advice: adviceForUnanswered(outcome, config) }),
  });
  const slowest = Math.max(...calls.map((call) => call.firstByteMs ?? call.endMs));
  verdicts.push({
    goal: 'first_byte',
    pass: slowest <= maxWaitMs,
    detail: `first byte after ${seconds(slowest)}`,
    ...(slowest <= maxWaitMs ? {} : { advice: "lower the route's timeouts.first_token_ms (or leave it auto) and timeouts.first_token_max_ms, so a slow or silent target is left sooner" }),
  });
  const wholeAnswers = (call: CallerView) => call.attempts.filter((attempt) => attempt.kind === 'ok').length;
  const twice = calls.find((call) => wholeAnswers(call) > 1);
  verdicts.push({
    goal: 'charged_once',
    pass: twice === undefined,
    detail: twice ? `${wholeAnswers(twice)} whole answers billed for one request` : 'at most one whole answer billed per request',
    ...(twice ? { advice: 'two attempts each delivered a whole answer: report it (the gateway should have stopped the second)' } : {}),
  });
  const falsely = calls.find((call) => call.endedFalsely);
  verdicts.push({
    goal: 'honest',
    pass: falsely === undefined,
    detail: falsely ? 'a stream ended as if whole that the gateway recorded as broken' : 'every broken stream said so',
    ...(falsely ? { advice: 'a broken stream ended as if whole: report it' } : {}),
  });
  // Only where every target is out of quota: while another is merely failing, a retry may find it well.
  if (scenario.fault === 'quota' && route.targets.every((target) => target.connection === scenario.connection)) {
    const advised = calls.find((call) => !call.answered && call.retryAdvised);
    verdicts.push({
      goal: 'no_retry_on_quota',
      pass: advised === undefined,
      detail: advised ? `told to retry (${advised.status})` : 'no caller told to retry',
      ...(advised ? { advice: 'a caller was told to retry against a spent quota: report it' } : {}),
    });
  }
  if (scenario.fault === 'flapping' && scenario.position === 0) verdicts.push(backInService(calls, scenario.connection, scenario.model, outcome.recoveredAtMs));
  return { ...outcome, verdicts, pass: verdicts.every((verdict) => verdict.pass) };
}

function answeredBy(calls: readonly CallerView[]): string {
  const by = [...new Set(calls.map((call) => call.servedBy ?? '?'))];
  return `answered by ${by.join(', ')}`;
}

/** Why the caller went unanswered, as the change that would have answered it. */
function adviceForUnanswered(outcome: ScenarioOutcome, config: Config): string {
  const { scenario } = outcome;
  const route = config.routes[scenario.route]!;
  const others = route.targets.filter((_, position) => position !== scenario.position);
  if (others.length === 0) return 'add a fallback target, on another connection';
  if (FAULTS[scenario.fault].connectionWide && others.every((target) => target.connection === scenario.connection)) {
    return `add a fallback on another connection: a ${scenario.fault} failure takes the whole connection down`;
  }
  // Content went out before the failure: past the commit point only `commit: complete` hides it —
  // when a target the call did not see fail is left to fail over to.
  const cut = outcome.calls.find((call) => !call.answered && call.status === 200 && call.firstByteMs !== null);
  const seenFailing = new Set(cut?.attempts.filter((attempt) => attempt.kind !== 'ok').map((attempt) => attempt.target));
  const another = others.some((target) => !seenFailing.has(operatorsName(`${target.connection}/${target.model}`)));
  if (cut && another && route.commit !== 'complete') return 'set `commit: complete` to make a cut stream invisible (the caller then waits for the whole answer)';
  return 'no other target answered in its place: check them, or add one on another connection';
}

/** The first caller served by the flapping primary after it came back, measured from its recovery. */
function backInService(calls: readonly CallerView[], connection: string, model: string, recoveredAtMs = FLAP_DOWN_MS): Verdict {
  const target = operatorsName(`${connection}/${model}`);
  // Down, it answers no one: the first caller it serves is served after its recovery.
  const served = calls.find((call) => call.servedBy === target);
  const afterMs = served ? Math.max(0, served.sentAtMs + served.endMs - recoveredAtMs) : undefined;
  const pass = afterMs !== undefined && afterMs <= BACK_IN_SERVICE_MS;
  return {
    goal: 'back_in_service',
    pass,
    detail: afterMs === undefined ? 'not back in service while the traffic lasted' : `back in service ${seconds(afterMs)} after it recovered`,
    ...(pass ? {} : { advice: 'leave health.recovery_probe_s on (2 s by default), so a recovered primary is readmitted by a probe' }),
  };
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
