import { FailureKind } from '../../core/failure-kind.js';
import type { UpstreamFailure, ResponseHeaders } from '../spec.js';
import { describeBody, excerptBody } from '../shared/body-excerpt.js';
import { isRecord, readRecord, readString } from '../shared/json-fields.js';
import { kindFromStatus } from '../shared/kind-from-status.js';
import { parseJson } from '../shared/parse-json.js';
import { parseRetryAfterMs } from '../shared/retry-after.js';

/** What an Anthropic error body (`{"type":"error","error":{…}}`) says. */
export interface AnthropicErrorDetails {
  message: string;
  type?: string;
  /** `error.details.error_code`, e.g. `enforced_spend_limit_reached`. */
  errorCode?: string;
}

// Anthropic's error types map one-to-one onto its statuses, and also name in-stream errors,
// which have no status at all.
const KIND_BY_TYPE: ReadonlyMap<string, UpstreamFailure['kind']> = new Map([
  ['invalid_request_error', FailureKind.invalidRequest],
  ['authentication_error', FailureKind.credential],
  ['permission_error', FailureKind.credential],
  ['billing_error', FailureKind.quotaExhausted],
  ['not_found_error', FailureKind.notFound],
  ['request_too_large', FailureKind.contextLength],
  ['rate_limit_error', FailureKind.rateLimit],
  ['api_error', FailureKind.serverError],
  ['overloaded_error', FailureKind.serverError],
  // Anthropic's own gateway timing out is the provider failing, not our deadline.
  ['timeout_error', FailureKind.serverError],
]);

/** Spend caps, whether the organisation's (429) or the user-set workspace limit (400). */
const USAGE_LIMITS_MESSAGE = /reached your .*API usage limits/i;
const CONTEXT_LENGTH_MESSAGE = /prompt is too long|exceed context limit/i;
/** Anthropic reports a blocked prompt or output as an invalid request naming its content policy. */
const CONTENT_POLICY_MESSAGE = /content (filtering )?polic(y|ies)|usage polic(y|ies)/i;

export function parseAnthropicError(
  status: number,
  headers: ResponseHeaders,
  body: string,
  nowMs: number,
): UpstreamFailure {
  const parsed = parseJson(body);
  const details = (parsed.ok ? readAnthropicErrorDetails(parsed.value) : undefined) ?? { message: describeBody(status, body) };
  const retryAfterMs = parseRetryAfterMs(headers, nowMs);
  const error = classifyAnthropicError(details, { status, retryAfterMs });
  return retryAfterMs === undefined ? error : { ...error, retryAfterMs };
}

export function readAnthropicErrorDetails(value: unknown): AnthropicErrorDetails | undefined {
  if (!isRecord(value)) return undefined;
  const error = readRecord(value, 'error');
  if (error === undefined) return undefined;
  const details = readRecord(error, 'details');
  return {
    message: readString(error, 'message') ?? excerptBody(JSON.stringify(error)),
    type: readString(error, 'type'),
    errorCode: details === undefined ? undefined : readString(details, 'error_code'),
  };
}

interface ErrorContext {
  /** Absent for errors inside a stream. */
  status?: number;
  retryAfterMs?: number;
}

export function classifyAnthropicError(details: AnthropicErrorDetails, context: ErrorContext = {}): UpstreamFailure {
  const { type, errorCode: code, message } = details;
  return { kind: kindOf(details, context), status: context.status, type, code, message };
}

function kindOf(details: AnthropicErrorDetails, context: ErrorContext): UpstreamFailure['kind'] {
  if (details.errorCode === 'enforced_spend_limit_reached') return FailureKind.quotaExhausted;
  const kind = KIND_BY_TYPE.get(details.type ?? '') ?? kindFromStatusOnly(context.status);
  // A spend cap arrives as a rate limit without a retry hint: waiting will not help.
  const mentionsUsageLimits = USAGE_LIMITS_MESSAGE.test(details.message);
  if (kind === FailureKind.rateLimit && context.retryAfterMs === undefined && mentionsUsageLimits) {
    return FailureKind.quotaExhausted;
  }
  if (kind === FailureKind.invalidRequest) {
    if (mentionsUsageLimits) return FailureKind.quotaExhausted;
    if (CONTEXT_LENGTH_MESSAGE.test(details.message)) return FailureKind.contextLength;
    if (CONTENT_POLICY_MESSAGE.test(details.message)) return FailureKind.moderation;
  }
  return kind;
}

/** For bodies without an Anthropic error type (a proxy's HTML page) or in-stream errors of a new type. */
function kindFromStatusOnly(status: number | undefined): UpstreamFailure['kind'] {
  if (status === undefined) return FailureKind.serverError;
  // 413 is Anthropic's request-size limit (answered by its edge, sometimes without JSON).
  if (status === 413) return FailureKind.contextLength;
  return kindFromStatus(status);
}
