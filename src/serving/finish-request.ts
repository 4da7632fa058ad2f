import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import { settleAdmission } from '../admission/admit-request.js';
import { consumptionOf } from '../admission/consumption.js';
import { knownSecrets } from '../config/known-secrets.js';
import { CALLER_LEFT, DRAIN_TIME_UP } from '../core/cancellation.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { FallbackShare } from '../health/fallback-share.js';
import type { GatewayResponse } from '../http/gateway-response.js';
import type { InFlightLimit } from '../http/in-flight-limit.js';
import type { IdempotencyStore } from '../idempotency/idempotency-store.js';
import type { RecordDraft } from '../records/record-draft.js';
import { isPrimaryTarget } from '../routing/plan-targets.js';
import { resolveRoute } from '../routing/resolve-route.js';
import { logRequest } from '../telemetry/log-request.js';
import type { Metrics } from '../telemetry/metrics.js';
import { observeRequest } from '../telemetry/observe-request.js';
import type { RequestSpans } from '../telemetry/request-spans.js';
import { keepRecord, type KeepRecordDeps } from './keep-record.js';
import { priceAttempts } from './price-attempts.js';
import type { RequestContext, RequestStart } from './request-context.js';

export interface FinishDeps extends KeepRecordDeps {
  idempotency: IdempotencyStore;
  inFlight: InFlightLimit;
  metrics: Metrics;
  logger: Logger;
  spans: RequestSpans | undefined;
  fallbackShare: FallbackShare;
}

export interface RequestEnd {
  start: RequestStart;
  /** Undefined when the request never got past the gate (refused, replayed). */
  context: RequestContext | undefined;
  /** What the pipeline threw, if it threw: the HTTP edge answers it after this end. */
  thrown: { error: unknown } | undefined;
  request: IncomingMessage;
  response: GatewayResponse;
}

/**
 * The one end of every inference request, whatever happened. The attempts are priced once, from
 * the request's own snapshot; that pricing settles the admission, becomes the spend rows and
 * the record's costs. Then the log line, spans, metrics and the route's fallback share. Sinks
 * are only enqueued here: nothing waits for a store.
 */
export function finishRequest(end: RequestEnd, deps: FinishDeps): void {
  const { start, context, request, response } = end;
  const { config, draft } = start;
  if (end.thrown) noteThrown(draft, end.thrown.error, deps.metrics);
  deps.inFlight.leave(request);
  // No status line reached a caller cut before its answer began: 503 is what it would have said.
  if (response.cutAtShutdown) draft.fail('interrupted', response.headersSent ? response.statusCode : 503, 'shutdown', DRAIN_TIME_UP.message);
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
  const record = keepRecord(draft, rows, config, deps);
  logRequest(deps.logger, record, () => knownSecrets(config));
  deps.spans?.export(record, () => knownSecrets(config));
  if (draft.replayed) deps.metrics.idempotentReplays.inc();
  // Callers' requests end here (the gateway's own end in keepGatewayRecord), so the share is theirs alone.
  if (draft.route !== null && draft.fallback !== undefined) deps.fallbackShare.record(draft.route, draft.fallback, Date.now());
  observeRequest(deps.metrics, record, {
    routeLabel: draft.routeLabel,
    malformedEvents: draft.attempts.reduce((sum, attempt) => sum + attempt.malformedEvents, 0),
  });
}

/** A caller that left before its body was whole is `cancelled`; a refusal is `rejected`; anything else a 500. */
function noteThrown(draft: RecordDraft, error: unknown, metrics: Metrics): void {
  if (error === CALLER_LEFT) draft.fail('cancelled', 499, 'cancelled');
  else if (error instanceof GatewayError) {
    draft.fail('rejected', error.status, error.code, error.message);
    if (error.code === 'budget_exceeded') metrics.budgetRefusals.inc();
    if (error.code === 'rate_limit_exceeded') metrics.limitRefusals.inc({ limit: error.type });
  } else draft.fail('failed', 500, 'internal_error');
}
