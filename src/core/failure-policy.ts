import type { FailureKind } from './failure-kind.js';

export type AttemptFailureKind = Exclude<FailureKind, 'ok'>;

/** What the attempt loop may do after a failed attempt; a route's `on` names one per kind. */
export const FAILURE_RULES = ['retry', 'failover', 'stop'] as const;
export type FailureRule = (typeof FAILURE_RULES)[number];

/**
 * When a kind's answer is the request's final error: `any` — one such attempt decides; `every` —
 * every attempt, and every target out of reach, has this final status (this kind among them);
 * `every_transient` — of the transient failures (attempts, and targets out for one), every one
 * has this final status: structural kinds beside them do not count; `otherwise` — no rule of an
 * earlier row held.
 */
export type FinalWhen = 'any' | 'every' | 'every_transient' | 'otherwise';

export interface FinalAnswer {
  status: number;
  code: string;
  /** The error envelope's `type`, where it is not the one the status gives. */
  type?: string;
  when: FinalWhen;
}

/** What a structural fault takes out: the one deployment, or every deployment of the connection. */
export type StructuralScope = 'deployment' | 'connection';

export interface KindPolicy {
  /** In words, as docs/errors.md has it. */
  meaning: string;
  /** What the attempt loop does next by default. */
  rule: FailureRule;
  /** Whether a route's `on:` may change the rule. */
  routeMayOverride: boolean;
  /** Whether a `retry` rule may send the same target the request again. */
  sameTargetRetry: boolean;
  /** Whether the failure counts toward ejecting the deployment (docs/health.md). */
  countsTowardEjection: boolean;
  /** Whether the deployment cools for the answer's Retry-After. */
  cools: boolean;
  /** Whether a short Retry-After is worth waiting for when only a model change is left. */
  waitHelps: boolean;
  /**
   * Whether the failure passes by itself (asking again later may well succeed): it decides the
   * final error over any structural kind beside it, and that error says when to ask again.
   */
  transient: boolean;
  /** Whether a failover may go only to targets with a larger (or unknown) context window. */
  narrowsToLargerContext: boolean;
  /** Whether the failure puts the deployment in the structural state at once, and how far it reaches. */
  structural: StructuralScope | null;
  /** What the caller is answered when this kind decides the final error. */
  final: FinalAnswer;
}

const UPSTREAM_ERROR: FinalAnswer = { status: 502, code: 'upstream_error', when: 'otherwise' };

/**
 * The one table that decides what each failure kind means (docs/errors.md holds the same rows, and
 * a test keeps the two equal). The rows are in the order the final error weighs them.
 */
export const FAILURE_POLICY = {
  moderation: {
    meaning: 'the provider refused the content',
    // Another provider would be asked the same refused question.
    rule: 'stop',
    routeMayOverride: true,
    sameTargetRetry: true,
    countsTowardEjection: false,
    cools: false,
    waitHelps: false,
    transient: false,
    narrowsToLargerContext: false,
    structural: null,
    final: { status: 400, code: 'content_policy_violation', when: 'any' },
  },
  context_length: {
    meaning: 'the input is too long for this model',
    rule: 'failover',
    routeMayOverride: true,
    sameTargetRetry: true,
    countsTowardEjection: false,
    cools: false,
    waitHelps: false,
    transient: false,
    narrowsToLargerContext: true,
    structural: null,
    final: { status: 400, code: 'context_length_exceeded', when: 'every' },
  },
  invalid_request: {
    meaning: 'the provider rejected the request',
    // Providers validate differently.
    rule: 'failover',
    routeMayOverride: true,
    sameTargetRetry: true,
    countsTowardEjection: false,
    cools: false,
    waitHelps: false,
    transient: false,
    narrowsToLargerContext: false,
    structural: null,
    final: { status: 400, code: 'invalid_request', when: 'every' },
  },
  rate_limit: {
    meaning: 'throttled; waiting helps',
    rule: 'failover',
    routeMayOverride: true,
    sameTargetRetry: true,
    countsTowardEjection: false,
    cools: true,
    waitHelps: true,
    transient: true,
    narrowsToLargerContext: false,
    structural: null,
    final: { status: 429, code: 'rate_limit_exceeded', when: 'every_transient' },
  },
  quota_exhausted: {
    meaning: 'a spend cap or billing limit: waiting minutes does not help',
    rule: 'failover',
    routeMayOverride: true,
    sameTargetRetry: true,
    countsTowardEjection: false,
    cools: true,
    waitHelps: false,
    transient: false,
    narrowsToLargerContext: false,
    structural: 'deployment',
    final: { status: 429, code: 'quota_exhausted', type: 'insufficient_quota', when: 'every' },
  },
  timeout: {
    meaning: 'nothing came in time',
    rule: 'failover',
    routeMayOverride: true,
    // A silent target stays silent.
    sameTargetRetry: false,
    countsTowardEjection: true,
    cools: false,
    waitHelps: false,
    transient: true,
    narrowsToLargerContext: false,
    structural: null,
    final: { status: 504, code: 'upstream_timeout', when: 'every_transient' },
  },
  internal_error: {
    meaning: 'the gateway itself failed to prepare or send the attempt; the provider never saw it',
    rule: 'failover',
    routeMayOverride: true,
    // Nothing reached the provider, so nothing is known about it; the same request would fail the
    // same way on this target, while another target's adapter may well build it.
    sameTargetRetry: false,
    countsTowardEjection: false,
    cools: false,
    waitHelps: false,
    transient: false,
    narrowsToLargerContext: false,
    structural: null,
    final: { status: 500, code: 'internal_error', when: 'every' },
  },
  empty_answer: {
    meaning: 'a 200 with no content, no tool call and no refusal',
    // Handing it over would pass off a non-answer as success; another target may well answer.
    rule: 'failover',
    routeMayOverride: true,
    sameTargetRetry: true,
    // An empty answer can belong to one prompt: it says little about the deployment.
    countsTowardEjection: false,
    cools: false,
    waitHelps: false,
    transient: false,
    narrowsToLargerContext: false,
    structural: null,
    final: UPSTREAM_ERROR,
  },
  server_error: {
    meaning: 'the provider failed',
    rule: 'retry',
    routeMayOverride: true,
    sameTargetRetry: true,
    countsTowardEjection: true,
    cools: false,
    waitHelps: false,
    transient: true,
    narrowsToLargerContext: false,
    structural: null,
    final: UPSTREAM_ERROR,
  },
  connection: {
    meaning: 'the provider could not be reached',
    rule: 'retry',
    routeMayOverride: true,
    sameTargetRetry: true,
    countsTowardEjection: true,
    cools: false,
    waitHelps: false,
    transient: true,
    narrowsToLargerContext: false,
    structural: null,
    final: UPSTREAM_ERROR,
  },
  credential: {
    meaning: 'the key is wrong or not allowed',
    rule: 'failover',
    routeMayOverride: true,
    sameTargetRetry: true,
    countsTowardEjection: false,
    cools: false,
    waitHelps: false,
    transient: false,
    narrowsToLargerContext: false,
    // A key is the connection's, not one model's.
    structural: 'connection',
    final: UPSTREAM_ERROR,
  },
  not_found: {
    meaning: 'the model does not exist (retired, misspelt)',
    rule: 'failover',
    routeMayOverride: true,
    sameTargetRetry: true,
    countsTowardEjection: false,
    cools: false,
    waitHelps: false,
    transient: false,
    narrowsToLargerContext: false,
    structural: 'deployment',
    final: UPSTREAM_ERROR,
  },
  stream_interrupted: {
    meaning: 'a committed stream failed: cut, in-band error, silent past idle_ms, ended before its finish',
    // Content was sent: nothing can move.
    rule: 'stop',
    routeMayOverride: true,
    sameTargetRetry: true,
    countsTowardEjection: true,
    cools: false,
    waitHelps: false,
    transient: false,
    narrowsToLargerContext: false,
    structural: null,
    final: UPSTREAM_ERROR,
  },
  cancelled: {
    meaning: 'the caller went away',
    // Nobody is left to answer.
    rule: 'stop',
    routeMayOverride: false,
    sameTargetRetry: true,
    countsTowardEjection: false,
    cools: false,
    waitHelps: false,
    transient: false,
    narrowsToLargerContext: false,
    structural: null,
    final: UPSTREAM_ERROR,
  },
} as const satisfies Readonly<Record<AttemptFailureKind, KindPolicy>>;

/** The kinds that put a deployment in the structural state the moment they are seen. */
export type StructuralKind = {
  [Kind in AttemptFailureKind]: (typeof FAILURE_POLICY)[Kind]['structural'] extends null ? never : Kind;
}[AttemptFailureKind];

export function ruleFor(kind: AttemptFailureKind, route: { on: Partial<Record<AttemptFailureKind, FailureRule>> }): FailureRule {
  const policy = FAILURE_POLICY[kind];
  return (policy.routeMayOverride ? route.on[kind] : undefined) ?? policy.rule;
}

export function isStructuralKind(kind: FailureKind): kind is StructuralKind {
  return kind !== 'ok' && FAILURE_POLICY[kind].structural !== null;
}
