import type { Config } from '../config/schema.js';
import { knownSecrets } from '../config/known-secrets.js';
import type { AttemptRecord } from '../core/attempt-record.js';
import type { FinalError } from '../engine/final-error.js';
import { secretRedactor, type Redact } from '../records/redact-secrets.js';
import type { CallerDialect } from '../dialects/caller-dialect.js';

/**
 * The final error of a request whose every attempt failed (docs/lifecycle.md), as the caller's dialect
 * spells it, with each attempt listed. Its messages can be a provider's own words (an invalid
 * request, a refusal), which may echo the key it was sent: the final error's message (`message`)
 * and every attempt's are redacted here, so the body and an in-band error frame made from them
 * are too; `attempts` is that list alone, for the in-band form of the same error after a heartbeat.
 */
export function failureBody(
  final: FinalError,
  failed: readonly AttemptRecord[],
  requestId: string,
  config: Config,
  dialect: Pick<CallerDialect, 'errorBody'>,
): { message: string; body: unknown; attempts: Record<string, unknown>[] } {
  const redact = secretRedactor(knownSecrets(config));
  const message = redact(final.message);
  const attempts = failed.map((attempt) => describeAttempt(attempt, redact));
  const body = dialect.errorBody({ status: final.status, code: final.code, type: final.type, message, requestId, attempts });
  return { message, body, attempts };
}

function describeAttempt(attempt: AttemptRecord, redact: Redact): Record<string, unknown> {
  return {
    n: attempt.n,
    target: `${attempt.connection}/${attempt.model}`,
    kind: attempt.kind,
    status: attempt.httpStatus ?? null,
    latency_ms: attempt.latencyMs,
    ...(attempt.message === undefined ? {} : { message: redact(attempt.message) }),
  };
}
