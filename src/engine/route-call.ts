import type { AccessTokens } from '../credentials/google-access-tokens.js';
import type { Cancellation } from '../core/cancellation.js';
import type { AttemptRecord } from '../core/attempt-record.js';
import type { SkippedTarget } from '../core/skipped-target.js';
import type { HealthDoor } from '../health/health-door.js';
import type { ProviderAdapter } from '../providers/spec.js';
import type { ResolvedRoute, ResolvedTarget } from '../routing/resolve-route.js';
import type { Transport } from '../transport/send-upstream.js';
import type { RetryBudgets } from './retry-budget.js';

/*
 * What a route's walk is given and gives back: the engine's dependencies, one caller request's
 * trip through a route, and what served it. Shared by the walk (run-route.ts) and the attempt
 * loop it drives (attempt-loop.ts), so neither imports the other for them.
 */

export interface EngineDeps {
  /** Whether a target may be tried, and how each attempt ended. */
  health: HealthDoor;
  transport: Transport;
  /** Bearer tokens of connections that sign in (Vertex), kept and renewed per connection. */
  accessTokens: AccessTokens;
  adapterFor(target: ResolvedTarget): ProviderAdapter;
  baseUrlFor(target: ResolvedTarget): string;
  retryBudgets: RetryBudgets;
}

/** One caller request's trip through a route, whatever its kind (the operation says that). */
export interface RouteCall {
  route: ResolvedRoute;
  /** Aborts when the caller goes away. */
  caller: Cancellation;
  requestStartedAtMs: number;
  deadlineAtMs: number;
  /** Time the loop spent waiting on purpose (backoff, a short Retry-After): not gateway overhead. */
  waited: { ms: number };
  /** Sent as `Idempotency-Key` on every attempt, so a provider can tell a resend from a new request. */
  upstreamIdempotencyKey?: string;
  /**
   * Targets that fail as `server_error` inside the gateway, once each, without a provider or
   * health hearing of it: the fallback drill's chain walk proves what follows them answers.
   */
  forcedFailures?: ReadonlySet<ResolvedTarget>;
  /** The target the caller's session is bound to (session affinity): tried first while the plan has it. */
  boundTarget?: ResolvedTarget | undefined;
}

export interface Served<Answer> {
  answer: Answer;
  served: ResolvedTarget;
  attempts: AttemptRecord[];
  /** Planned targets passed over without an attempt; undefined when none were. */
  skipped?: SkippedTarget[] | undefined;
}
