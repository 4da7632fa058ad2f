import { settleAdmission } from '../admission/admit-request.js';
import { consumptionOf } from '../admission/consumption.js';
import { DRAIN_TIME_UP } from '../core/cancellation.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { FallbackShare } from '../health/fallback-share.js';
import type { InFlightLimit } from '../http/in-flight-limit.js';
import type { IdempotencyStore } from '../idempotency/idempotency-store.js';
import { isPrimaryTarget } from '../routing/plan-targets.js';
import { resolveRoute } from '../routing/resolve-route.js';
import type { Metrics } from '../telemetry/metrics.js';
import type { CallerReply } from './caller-reply.js';
import type { Inbound } from './inbound.js';
import { keepRecord, type KeepRecordDeps } from './keep-record.js';
import { priceAttempts } from './price-attempts.js';
import { recordFailure } from './record-failure.js';
import type { RequestContext, RequestStart } from './request-context.js';

export interface FinishDeps extends KeepRecordDeps {
  idempotency: IdempotencyStore;
  inFlight: InFlightLimit;
  fallbackShare: FallbackShare;
}

export interface RequestEnd {
  start: RequestStart;
  /** Undefined when the request never got past the gate (refused, replayed). */
  context: RequestContext | undefined;
  /** What the pipeline threw, if it threw: the reply has answered it already. */
  thrown: { error: unknown } | undefined;
  request: Inbound;
  /** What the caller was sent: the record says what really happened. */
  reply: CallerReply;
}

/**
 * The end of every caller's inference request, whatever happened. The attempts are priced once,
 * from the request's own snapshot; that pricing settles the admission, and `keepRecord` — the end
 * the gateway's own requests come to as well — makes it the spend rows and the record's costs,
 * with the log line, spans and metrics. What is the callers' alone is settled here: admission,
 * idempotency, the in-flight count and the route's fallback share.
 */
export function finishRequest(end: RequestEnd, deps: FinishDeps): void {
  const { start, context, request, reply } = end;
  const { config, draft } = start;
  if (end.thrown) {
    recordFailure(draft, end.thrown.error);
    countRefusal(end.thrown.error, deps.metrics);
  }
  deps.inFlight.leave(request);
  // No status line reached a caller cut before its answer began: 503 is what it would have said.
  if (reply.cutAtShutdown) draft.fail('interrupted', reply.sentStatus ?? 503, { code: 'shutdown', message: DRAIN_TIME_UP.message });
  // A final error told in-band went out under the 200 a heartbeat had sent.
  else if (reply.failedInBand) draft.httpStatus = 200;
  const rows = priceAttempts(draft, config);
  if (context) {
    settleAdmission(context.admission, consumptionOf(rows), Date.now());
    if (context.idempotency && !context.idempotency.completed) deps.idempotency.abandon(context.idempotency.entry);
  }
  if (draft.served && draft.route !== null) {
    // Named routes only: direct connection/model requests have no fallback (and unbounded names).
    const route = config.routes[draft.route];
    if (route) {
      const { targets } = resolveRoute(config, draft.route);
      draft.fallback = !isPrimaryTarget(targets, route.strategy, draft.served);
    }
  }
  keepRecord(draft, config, deps, rows);
  if (draft.replayed) deps.metrics.idempotentReplays.inc();
  // Only callers' requests end here, so the share is theirs alone.
  if (draft.route !== null && draft.fallback !== undefined) deps.fallbackShare.record(draft.route, draft.fallback, Date.now());
}

/** Refusals for budget and rate limits are counted apart: they are the callers' limits at work, not failures. */
function countRefusal(error: unknown, metrics: Metrics): void {
  if (!(error instanceof GatewayError)) return;
  if (error.code === 'budget_exceeded') metrics.budgetRefusals.inc();
  if (error.code === 'rate_limit_exceeded') metrics.limitRefusals.inc({ limit: error.type });
}
