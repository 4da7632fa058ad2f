import { AllAttemptsFailedError } from '../errors/all-attempts-failed-error.js';
import type { ChatRequest, ChatResult, ProviderAdapter, StreamEvent } from '../providers/spec.js';
import type { ResolvedRoute, ResolvedTarget } from '../routing/resolve-route.js';
import type { Transport } from '../transport/send-upstream.js';
import type { AttemptRecord } from './attempt-record.js';
import { backoffDelayMs } from './backoff.js';
import { ruleFor } from './failure-policy.js';
import { runAttempt } from './run-attempt.js';
import { sleep } from './sleep.js';

export interface EngineDeps {
  transport: Transport;
  adapterFor(target: ResolvedTarget): ProviderAdapter;
  baseUrlFor(target: ResolvedTarget): string;
}

export interface ChatCall {
  request: ChatRequest;
  route: ResolvedRoute;
  /** Aborts when the caller goes away. */
  callerSignal: AbortSignal;
  requestStartedAtMs: number;
  deadlineAtMs: number;
}

export type ChatOutcome =
  | { type: 'result'; result: ChatResult; served: ResolvedTarget; attempts: AttemptRecord[] }
  | { type: 'stream'; events: AsyncIterable<StreamEvent>; served: ResolvedTarget; attempts: AttemptRecord[] };

/**
 * The attempt loop: tries the route's targets in plan order, retrying a target only for kinds
 * whose rule is `retry`, moving on for `failover`, ending for `stop`. It returns at the first
 * success (for streams: the commit point); when nothing succeeded it throws
 * `AllAttemptsFailedError` with every attempt.
 */
export async function runChat(call: ChatCall, deps: EngineDeps): Promise<ChatOutcome> {
  const attempts: AttemptRecord[] = [];
  const { policy } = call.route;
  targets: for (const target of call.route.targets) {
    for (let retry = 0; ; retry++) {
      if (call.callerSignal.aborted || Date.now() >= call.deadlineAtMs) break targets;
      const outcome = await runAttempt({
        n: attempts.length + 1,
        target,
        adapter: deps.adapterFor(target),
        baseUrl: deps.baseUrlFor(target),
        request: call.request,
        timeouts: policy.timeouts,
        callerSignal: call.callerSignal,
        deadlineAtMs: call.deadlineAtMs,
        requestStartedAtMs: call.requestStartedAtMs,
        transport: deps.transport,
      });
      attempts.push(outcome.record);
      if (outcome.ok) {
        return 'result' in outcome
          ? { type: 'result', result: outcome.result, served: target, attempts }
          : { type: 'stream', events: outcome.events, served: target, attempts };
      }
      const { kind } = outcome.error;
      const rule = ruleFor(kind, policy);
      if (kind === 'cancelled' || rule === 'stop') break targets;
      // A silent target stays silent: a timeout is never retried on the same target.
      if (rule !== 'retry' || kind === 'timeout' || retry >= policy.retries) continue targets;
      const delayMs = backoffDelayMs(retry, policy.backoff);
      if (Date.now() + delayMs >= call.deadlineAtMs) continue targets;
      if (!(await sleep(delayMs, call.callerSignal))) break targets;
    }
  }
  throw new AllAttemptsFailedError(attempts);
}
