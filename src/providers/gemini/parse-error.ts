import { FailureKind } from '../../core/failure-kind.js';
import type { UpstreamFailure, ResponseHeaders } from '../spec.js';
import { describeBody, excerptBody } from '../shared/body-excerpt.js';
import { isRecord, readArray, readNumber, readRecord, readString, type JsonRecord } from '../shared/json-fields.js';
import { kindFromStatus } from '../shared/kind-from-status.js';
import { parseJson } from '../shared/parse-json.js';
import { parseRetryAfterMs } from '../shared/retry-after.js';

/** What a google.rpc error body (`{"error": {code, message, status, details}}`) says. */
export interface GeminiErrorDetails {
  message: string;
  /** The google.rpc status name: `INVALID_ARGUMENT`, `RESOURCE_EXHAUSTED`, … */
  status?: string;
  /** The HTTP status the body names (`error.code`); the only status an in-stream error has. */
  httpStatus?: number;
  /** `google.rpc.ErrorInfo.reason`, e.g. `API_KEY_INVALID`. */
  reason?: string;
  /** `google.rpc.RetryInfo.retryDelay`, in milliseconds. */
  retryDelayMs?: number;
  /**
   * The quotas named: `google.rpc.QuotaFailure` violations' `quotaId`s (the Gemini API's
   * `GenerateRequestsPerDayPerProjectPerModel-FreeTier`) and `ErrorInfo.metadata`'s
   * `quota_limit` / `quota_metric` (Vertex's `…_per_minute_per_project_per_base_model`).
   */
  quotaIds: string[];
}

const KIND_BY_RPC_STATUS: ReadonlyMap<string, UpstreamFailure['kind']> = new Map([
  ['INVALID_ARGUMENT', FailureKind.invalidRequest],
  ['FAILED_PRECONDITION', FailureKind.invalidRequest],
  ['UNAUTHENTICATED', FailureKind.credential],
  ['PERMISSION_DENIED', FailureKind.credential],
  ['NOT_FOUND', FailureKind.notFound],
  ['INTERNAL', FailureKind.serverError],
  ['UNAVAILABLE', FailureKind.serverError],
  // Gemini's own deadline ran out (its docs blame a prompt too large to finish in time): the
  // provider failing, not our timeout, which means a silent target.
  ['DEADLINE_EXCEEDED', FailureKind.serverError],
]);

const CONTEXT_LENGTH_MESSAGE = /input token count .*exceeds the maximum/i;
/** A bad or expired key is a 400 INVALID_ARGUMENT, not a 401. */
const API_KEY_MESSAGE = /\bAPI key\b/i;
/** Daily quotas are named so (`…PerDay…`, `…_per_day…`); per-minute ones `…PerMinute…`. */
const PER_DAY_QUOTA = /per_?day/i;
const RETRY_DELAY = /^(\d+(?:\.\d+)?)s$/;

export function parseGeminiError(
  status: number,
  headers: ResponseHeaders,
  body: string,
  nowMs: number,
): UpstreamFailure {
  const parsed = parseJson(body);
  const details = (parsed.ok ? readGeminiErrorDetails(parsed.value) : undefined) ?? {
    message: describeBody(status, body),
    quotaIds: [],
  };
  return classifyGeminiError(details, { status, retryAfterMs: parseRetryAfterMs(headers, nowMs) });
}

/** The error a body or stream chunk carries, if any. The streaming endpoint wraps it in an array. */
export function readGeminiErrorDetails(value: unknown): GeminiErrorDetails | undefined {
  const envelope: unknown = Array.isArray(value) ? value[0] : value;
  if (!isRecord(envelope) || !isRecord(envelope.error)) return undefined;
  const error = envelope.error;
  const details = (readArray(error, 'details') ?? []).filter(isRecord);
  const detailOf = (type: string): JsonRecord | undefined =>
    details.find((detail) => readString(detail, '@type') === `type.googleapis.com/google.rpc.${type}`);
  const errorInfo = detailOf('ErrorInfo');
  const retryInfo = detailOf('RetryInfo');
  const quotaFailure = detailOf('QuotaFailure');
  const violations = (quotaFailure && readArray(quotaFailure, 'violations')) ?? [];
  return {
    message: readString(error, 'message') ?? excerptBody(JSON.stringify(error)),
    status: readString(error, 'status'),
    httpStatus: readNumber(error, 'code'),
    reason: errorInfo && readString(errorInfo, 'reason'),
    retryDelayMs: retryInfo && parseRetryDelayMs(readString(retryInfo, 'retryDelay')),
    quotaIds: [
      ...violations.filter(isRecord).flatMap((violation) => readString(violation, 'quotaId') ?? []),
      ...quotaNamesOf(errorInfo && readRecord(errorInfo, 'metadata')),
    ],
  };
}

function quotaNamesOf(metadata: JsonRecord | undefined): string[] {
  if (metadata === undefined) return [];
  return ['quota_limit', 'quota_metric'].flatMap((key) => readString(metadata, key) ?? []);
}

interface ErrorContext {
  /** Absent for errors inside a stream. */
  status?: number;
  /** From a Retry-After header; the body's RetryInfo is preferred. */
  retryAfterMs?: number;
}

export function classifyGeminiError(details: GeminiErrorDetails, context: ErrorContext = {}): UpstreamFailure {
  const error: UpstreamFailure = {
    kind: kindOf(details, context.status ?? details.httpStatus),
    status: context.status,
    type: details.status,
    code: details.reason,
    message: details.message,
  };
  const retryAfterMs = details.retryDelayMs ?? context.retryAfterMs;
  return retryAfterMs === undefined ? error : { ...error, retryAfterMs };
}

function kindOf(details: GeminiErrorDetails, httpStatus: number | undefined): UpstreamFailure['kind'] {
  if (details.reason?.startsWith('API_KEY_') || (details.status === 'INVALID_ARGUMENT' && API_KEY_MESSAGE.test(details.message))) {
    return FailureKind.credential;
  }
  if (CONTEXT_LENGTH_MESSAGE.test(details.message)) return FailureKind.contextLength;
  if (details.status === 'RESOURCE_EXHAUSTED' || httpStatus === 429) return exhaustedKind(details, httpStatus);
  const kind = KIND_BY_RPC_STATUS.get(details.status ?? '');
  if (kind !== undefined) return kind;
  return httpStatus === undefined ? FailureKind.serverError : kindFromStatus(httpStatus);
}

/**
 * RESOURCE_EXHAUSTED is nearly always a per-minute limit, even when its message says "check your
 * plan and billing details" — so the message decides nothing. A daily quota is exhausted until the
 * next day whatever RetryInfo says, and 402 is prepaid credit used up.
 */
function exhaustedKind(details: GeminiErrorDetails, httpStatus: number | undefined): UpstreamFailure['kind'] {
  if (httpStatus === 402 || details.quotaIds.some((id) => PER_DAY_QUOTA.test(id))) return FailureKind.quotaExhausted;
  return FailureKind.rateLimit;
}

/** A google.protobuf.Duration in JSON: seconds with an `s`, fractions allowed ("26s", "34.4s"). */
function parseRetryDelayMs(delay: string | undefined): number | undefined {
  const match = RETRY_DELAY.exec(delay ?? '');
  return match === null ? undefined : Math.round(Number(match[1]) * 1000);
}
