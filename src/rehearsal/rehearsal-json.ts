import type { RehearsalDocument } from './rehearsal-document.js';
import type { Rehearsal } from './run-rehearsal.js';

/** The rehearsal as its document. */
export function rehearsalJson(rehearsal: Rehearsal, maxWaitS: number): RehearsalDocument {
  return {
    max_wait_s: maxWaitS,
    duration_ms: Math.round(rehearsal.durationMs),
    scenarios_total: rehearsal.scenarios.length,
    failed: rehearsal.failed,
    scenarios: rehearsal.scenarios.map((judged) => ({
      route: judged.scenario.route,
      position: judged.scenario.position,
      target: `${judged.scenario.connection}/${judged.scenario.model}`,
      fault: judged.scenario.fault,
      request: judged.scenario.request,
      pass: judged.pass,
      verdicts: judged.verdicts,
      upstream_calls: judged.upstreamCalls,
      calls: judged.calls.map((call) => ({
        sent_at_ms: Math.round(call.sentAtMs),
        status: call.status,
        error_type: call.errorType,
        served_by: call.servedBy,
        first_byte_ms: call.firstByteMs === null ? null : Math.round(call.firstByteMs),
        end_ms: Math.round(call.endMs),
        answered: call.answered,
        attempts: call.attempts.map((attempt) => ({ target: attempt.target, kind: attempt.kind, http_status: attempt.httpStatus, error_type: attempt.errorType })),
        cost_usd: call.costUsd,
      })),
    })),
  };
}
