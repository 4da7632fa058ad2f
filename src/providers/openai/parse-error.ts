import { FailureKind } from '../../core/failure-kind.js';
import type { UpstreamFailure, ResponseHeaders } from '../spec.js';
import { describeBody, excerptBody } from '../shared/body-excerpt.js';
import { isRecord, readNumber, readRecord, readString, type JsonRecord } from '../shared/json-fields.js';
import { kindFromStatus } from '../shared/kind-from-status.js';
import { parseJson } from '../shared/parse-json.js';
import { parseRetryAfterMs } from '../shared/retry-after.js';

/** What an OpenAI-style error body says, whichever envelope the host used. */
export interface OpenAiErrorDetails {
  message: string;
  type?: string;
  code?: string;
  /** Azure's `innererror.code` (e.g. `ResponsibleAIPolicyViolation`). */
  innerCode?: string;
  /** A status some hosts put inside the body (Azure `status`, OpenRouter numeric `code`). */
  embeddedStatus?: number;
}

const QUOTA_CODES = new Set([
  'insufficient_quota',
  'organization_spend_limit_exceeded',
  'project_spend_limit_exceeded',
  'billing_hard_limit_reached',
]);
const MODERATION_CODES = new Set(['content_policy_violation', 'invalid_prompt', 'content_filter']);
const CONTEXT_LENGTH_MESSAGE = /maximum context length/i;

// Without an HTTP status (an error inside a 200 body or stream), the code or type decides;
// anything else is the provider failing mid-answer.
const IN_BAND_KINDS: ReadonlyMap<string, UpstreamFailure['kind']> = new Map([
  ['rate_limit_exceeded', FailureKind.rateLimit],
  ['invalid_api_key', FailureKind.credential],
  ['authentication_error', FailureKind.credential],
  ['model_not_found', FailureKind.notFound],
  ['invalid_request_error', FailureKind.invalidRequest],
]);

export function parseOpenAiError(
  status: number,
  headers: ResponseHeaders,
  body: string,
  nowMs: number,
): UpstreamFailure {
  const parsed = parseJson(body);
  const details = (parsed.ok ? readErrorBody(parsed.value) : undefined) ?? { message: describeBody(status, body) };
  const error = classifyOpenAiError(details, status);
  const retryAfterMs = parseRetryAfterMs(headers, nowMs);
  return retryAfterMs === undefined ? error : { ...error, retryAfterMs };
}

/** Classifies by the body's code first (it is more specific), then by status. */
export function classifyOpenAiError(details: OpenAiErrorDetails, status?: number): UpstreamFailure {
  const { message, type, code } = details;
  return { kind: kindOf(details, status), status, type, code, message };
}

/** The error a 2xx body or stream chunk carries as `{"error": …}`, if any. */
export function readEmbeddedError(record: JsonRecord): OpenAiErrorDetails | undefined {
  const error = record.error;
  if (typeof error === 'string') return { message: error };
  if (!isRecord(error)) return undefined;
  const code = error.code;
  const innerError = readRecord(error, 'innererror');
  return {
    message: readString(error, 'message') ?? excerptBody(JSON.stringify(error)),
    type: readString(error, 'type'),
    code: typeof code === 'number' ? String(code) : readString(error, 'code'),
    innerCode: innerError === undefined ? undefined : readString(innerError, 'code'),
    embeddedStatus: typeof code === 'number' ? code : readNumber(error, 'status'),
  };
}

/** Error bodies of compatible hosts also come as `{"message": …, "type": …}` (Mistral). */
function readErrorBody(value: unknown): OpenAiErrorDetails | undefined {
  if (!isRecord(value)) return undefined;
  const embedded = readEmbeddedError(value);
  if (embedded !== undefined) return embedded;
  const message = value.message;
  if (message === undefined) return undefined;
  return {
    message: typeof message === 'string' ? message : excerptBody(JSON.stringify(message)),
    type: readString(value, 'type'),
    code: readString(value, 'code'),
  };
}

function kindOf(details: OpenAiErrorDetails, status: number | undefined): UpstreamFailure['kind'] {
  const { code, type, message } = details;
  if (QUOTA_CODES.has(code ?? '') || QUOTA_CODES.has(type ?? '')) return FailureKind.quotaExhausted;
  if (code === 'context_length_exceeded' || CONTEXT_LENGTH_MESSAGE.test(message)) return FailureKind.contextLength;
  if (MODERATION_CODES.has(code ?? '') || details.innerCode === 'ResponsibleAIPolicyViolation') {
    return FailureKind.moderation;
  }
  const effectiveStatus = status ?? details.embeddedStatus;
  if (effectiveStatus !== undefined) return kindFromStatus(effectiveStatus);
  return IN_BAND_KINDS.get(code ?? '') ?? IN_BAND_KINDS.get(type ?? '') ?? FailureKind.serverError;
}
