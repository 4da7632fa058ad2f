import { deploymentKey } from '../core/deployment-key.js';
import type { RequestRecord } from '../core/request-record.js';
import type { Metrics } from './metrics.js';

/**
 * Updates the request-level metrics from a finished request's record (once per request). Each
 * carries the record's origin, so a dashboard can keep the gateway's own traffic (drills,
 * canaries, probes) out of what it shows of callers.
 */
export function observeRequest(metrics: Metrics, record: RequestRecord, options: { routeLabel: string | null; malformedEvents: number }): void {
  const { routeLabel } = options;
  const route = routeLabel ?? '(none)';
  const { origin } = record;
  metrics.requests.inc({ route, status: record.status, origin });
  if (record.status === 'rejected') return;
  // The attempt whose output reached the caller: a race's loser never commits.
  const answered = record.attempts.find((attempt) => attempt.committed);
  for (let index = 0; index < record.attempts.length; index++) {
    const attempt = record.attempts[index]!;
    metrics.attempts.inc({ kind: attempt.kind, origin });
    if (attempt.hedge) metrics.hedges.inc({ route, outcome: answered === undefined ? 'unanswered' : answered === attempt ? 'won' : 'lost', origin });
    if (attempt.kind === 'stream_interrupted') metrics.streamInterrupted.inc({ route, origin });
    if (record.deadline_ms !== null) metrics.deadlineRemaining.observe({ origin }, (record.deadline_ms - attempt.started_ms) / 1000);
    const previous = record.attempts[index - 1];
    if (previous !== undefined && (previous.connection !== attempt.connection || previous.model !== attempt.model)) {
      metrics.failovers.inc({ from: deploymentKey(previous.connection, previous.model), to: deploymentKey(attempt.connection, attempt.model), origin });
    }
  }
  if (options.malformedEvents > 0) metrics.malformedEvents.inc({ origin }, options.malformedEvents);
  metrics.attemptsPerRequest.observe({ origin }, record.attempts.length);
  metrics.addedLatency.observe({ origin }, record.added_latency_ms / 1000);
  if (record.first_token_ms !== null) metrics.firstToken.observe({ origin }, record.first_token_ms / 1000);
}
