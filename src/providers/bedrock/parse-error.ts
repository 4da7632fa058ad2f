import { FailureKind } from '../../core/failure-kind.js';
import type { UpstreamFailure, ResponseHeaders } from '../spec.js';
import { describeBody } from '../shared/body-excerpt.js';
import { isRecord, readString, type JsonRecord } from '../shared/json-fields.js';
import { kindFromStatus } from '../shared/kind-from-status.js';
import { parseJson } from '../shared/parse-json.js';
import { readHeader } from '../shared/read-header.js';
import { parseRetryAfterMs } from '../shared/retry-after.js';

/** What a Bedrock error says: the exception's name, and its message. */
export interface BedrockErrorDetails {
  /** `ThrottlingException` from `x-amzn-errortype`, or `throttlingException` inside a stream. */
  type?: string;
  message: string;
}

// Exception names, in the PascalCase of responses (streams spell them in lowerCamelCase).
const KIND_BY_TYPE: ReadonlyMap<string, UpstreamFailure['kind']> = new Map([
  ['ThrottlingException', FailureKind.rateLimit],
  ['ServiceQuotaExceededException', FailureKind.rateLimit],
  // Bedrock is loading the model; AWS's own SDKs retry it.
  ['ModelNotReadyException', FailureKind.serverError],
  ['ServiceUnavailableException', FailureKind.serverError],
  ['InternalServerException', FailureKind.serverError],
  ['ModelErrorException', FailureKind.serverError],
  ['ModelStreamErrorException', FailureKind.serverError],
  // The model running past Bedrock's own limit is the provider failing, not our deadline.
  ['ModelTimeoutException', FailureKind.serverError],
  ['ValidationException', FailureKind.invalidRequest],
  ['ResourceNotFoundException', FailureKind.notFound],
  ['AccessDeniedException', FailureKind.credential],
  ['UnrecognizedClientException', FailureKind.credential],
  ['InvalidSignatureException', FailureKind.credential],
  ['IncompleteSignatureException', FailureKind.credential],
  ['ExpiredTokenException', FailureKind.credential],
  ['MissingAuthenticationTokenException', FailureKind.credential],
]);

/** A daily token quota is throttled like a rate limit, but waiting minutes will not lift it. */
const DAILY_QUOTA_MESSAGE = /per day/i;
/** Bedrock's own wording, and the model's passed through ("The model returned the following errors: …"). */
const CONTEXT_LENGTH_MESSAGE = /input is too long|prompt is too long|exceed context limit|maximum context length/i;
/** A model id this account can never invoke as configured: the target is structurally unusable. */
const UNUSABLE_MODEL_MESSAGE = /model identifier is invalid|on-demand throughput isn.t supported/i;
/** Models that filter by refusing the request (Titan, Stability) answer with a validation error. */
const CONTENT_FILTER_MESSAGE = /blocked by our content filters/i;
/**
 * Access denials that are about one model, not the key: taking the whole connection out for them
 * would stop its other models too. Model access not granted is like a model that is not there;
 * a feature the model lacks ("…did not allow prompt caching") is a request another target may take.
 */
const MODEL_ACCESS_MESSAGE = /access to the model/i;
const UNSUPPORTED_FEATURE_MESSAGE = /unsupported model|did not allow prompt caching/i;

export function parseBedrockError(
  status: number,
  headers: ResponseHeaders,
  body: string,
  nowMs: number,
): UpstreamFailure {
  const parsed = parseJson(body);
  const record = parsed.ok && isRecord(parsed.value) ? parsed.value : {};
  const details: BedrockErrorDetails = {
    // `ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/`
    type: readHeader(headers, 'x-amzn-errortype')?.split(':')[0] ?? readBodyType(record),
    message: readString(record, 'message') ?? readString(record, 'Message') ?? describeBody(status, body),
  };
  const error = classifyBedrockError(details, status);
  const retryAfterMs = parseRetryAfterMs(headers, nowMs);
  return retryAfterMs === undefined ? error : { ...error, retryAfterMs };
}

/** `__type` is either the bare name or namespaced, e.g. `com.amazon.coral.service#UnrecognizedClientException`. */
function readBodyType(record: JsonRecord): string | undefined {
  return readString(record, '__type')?.split('#').at(-1);
}

/** Classifies by the exception's name first, then by status; errors inside a stream have none. */
export function classifyBedrockError(details: BedrockErrorDetails, status?: number): UpstreamFailure {
  const { type, message } = details;
  return { kind: kindOf(details, status), status, type, message };
}

function kindOf(details: BedrockErrorDetails, status: number | undefined): UpstreamFailure['kind'] {
  const knownKind = details.type === undefined ? undefined : KIND_BY_TYPE.get(pascalCase(details.type));
  // A stream's unknown exception is the provider failing mid-answer.
  const kind = knownKind ?? (status === undefined ? FailureKind.serverError : kindFromStatus(status));
  if (kind === FailureKind.rateLimit && DAILY_QUOTA_MESSAGE.test(details.message)) return FailureKind.quotaExhausted;
  if (kind === FailureKind.credential) {
    if (UNSUPPORTED_FEATURE_MESSAGE.test(details.message)) return FailureKind.invalidRequest;
    if (MODEL_ACCESS_MESSAGE.test(details.message)) return FailureKind.notFound;
  }
  if (kind === FailureKind.invalidRequest) {
    if (CONTEXT_LENGTH_MESSAGE.test(details.message)) return FailureKind.contextLength;
    if (UNUSABLE_MODEL_MESSAGE.test(details.message)) return FailureKind.notFound;
    if (CONTENT_FILTER_MESSAGE.test(details.message)) return FailureKind.moderation;
  }
  return kind;
}

function pascalCase(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
