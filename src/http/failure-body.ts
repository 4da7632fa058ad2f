import type { Config } from '../config/schema.js';
import { knownSecrets } from '../config/known-secrets.js';
import type { AttemptRecord } from '../engine/attempt-record.js';
import { finalError, type FinalError } from '../engine/final-error.js';
import type { AllAttemptsFailedError } from '../errors/all-attempts-failed-error.js';
import { redactSecrets } from '../records/redact-secrets.js';
import type { RequestTrace } from '../records/request-trace.js';
import type { InboundDialect } from './inbound-dialect.js';

/**
 * The final error of a request whose every attempt failed (docs/lifecycle.md), as the caller's dialect
 * spells it, with each attempt listed (messages redacted of known secrets); `attempts` is that
 * list alone, for the in-band form of the same error after a heartbeat.
 */
export function failureBody(
  error: AllAttemptsFailedError,
  trace: RequestTrace,
  config: Config,
  dialect: Pick<InboundDialect, 'errorBody'>,
): { final: FinalError; body: unknown; attempts: Record<string, unknown>[] } {
  const final = finalError(error.attempts, error.coolingEndsInMs);
  const secrets = knownSecrets(config);
  const attempts = error.attempts.map((attempt) => describeAttempt(attempt, secrets));
  const body = dialect.errorBody({
    status: final.status,
    code: final.code,
    type: final.type,
    message: final.message,
    requestId: trace.id,
    attempts,
  });
  return { final, body, attempts };
}

function describeAttempt(attempt: AttemptRecord, secrets: ReadonlySet<string>): Record<string, unknown> {
  return {
    n: attempt.n,
    target: `${attempt.connection}/${attempt.model}`,
    kind: attempt.kind,
    status: attempt.httpStatus ?? null,
    latency_ms: attempt.latencyMs,
    ...(attempt.message === undefined ? {} : { message: redactSecrets(attempt.message, secrets) }),
  };
}
