/**
 * Vertex AI, which serves Claude (`publishers/anthropic`, the Messages format) and Gemini
 * (`publishers/google`, the GenerateContent format): the answers are those formats' own
 * (./anthropic-wire.ts, ./gemini-wire.ts), the errors are Vertex's (./vertex-error-bodies.ts).
 * The platform's errors are google.rpc bodies with any retry hint as a RetryInfo detail; Claude's
 * model layer answers in Anthropic's form, a retry hint in `retry-after`.
 */
import { anthropicWire } from './anthropic-wire.js';
import type { ErrorName } from './directives.js';
import { anthropicErrorBodies } from './error-bodies.js';
import { geminiErrorBodies, type GeminiErrorBody } from './gemini-error-bodies.js';
import { geminiAnswers, geminiWire, promptBlocked, retryDelay, withRetryInfo } from './gemini-wire.js';
import { retryAfterHeaders } from './retry-after-headers.js';
import type { VertexResource } from './routes.js';
import {
  claudeOnVertexRefusals,
  internal,
  invalidArgument,
  notFound,
  perDayQuota,
  perMinuteQuota,
  permissionDenied,
  sharedCapacityExhausted,
  unauthenticated,
  unavailable,
} from './vertex-error-bodies.js';
import type { AnswerPlan, ErrorAnswer, ErrorFaults, WireFormat } from './wire.js';

/** Where an error comes from: the platform (google.rpc) or Claude's model layer (Anthropic's body). */
type ErrorSource = { status: number; platform: GeminiErrorBody } | { status: number; modelLayer: object };

const quotaNames: readonly ErrorName[] = ['insufficient_quota', 'spend_cap', 'spend_limit'];

export function vertexWire(resource: VertexResource): WireFormat {
  return resource.publisher === 'anthropic' ? claudeWire(resource) : geminiOnVertexWire(resource);
}

function claudeWire(resource: VertexResource): WireFormat {
  return {
    dialect: 'anthropic',
    requestIdHeader: anthropicWire.requestIdHeader,
    streamContentType: anthropicWire.streamContentType,
    malformedFrame: anthropicWire.malformedFrame,
    completion: (plan) => anthropicWire.completion(withAnthropicSpelling(plan)),
    stream: (plan) => anthropicWire.stream(withAnthropicSpelling(plan)),
    inbandError: anthropicWire.inbandError,
    error: (faults, request) => errorAnswer(claudeErrorSource(faults, resource, request.model), faults),
    invalidRequest: anthropicWire.invalidRequest,
    refuseBody: claudeBodyRefusal,
  };
}

/** Vertex answers with the model's Anthropic spelling: `claude-sonnet-4-5@20250929` is reported as `claude-sonnet-4-5-20250929`. */
function withAnthropicSpelling(plan: AnswerPlan): AnswerPlan {
  return { ...plan, name: plan.name.replace('@', '-') };
}

/** Vertex takes the Messages body with `anthropic_version` and without `model`, which the path names. */
function claudeBodyRefusal(fields: Record<string, unknown>): ErrorAnswer | undefined {
  let body: object | undefined;
  if (fields.anthropic_version === undefined) body = claudeOnVertexRefusals.anthropicVersionMissing;
  else if (fields.anthropic_version !== 'vertex-2023-10-16') body = claudeOnVertexRefusals.anthropicVersionWrong;
  else if (fields.model !== undefined) body = claudeOnVertexRefusals.modelInBody;
  return body && { status: 400, body: JSON.stringify(body), headers: {} };
}

function claudeErrorSource(faults: ErrorFaults, resource: VertexResource, model: string): ErrorSource {
  const name = faults.errorName;
  if (name === 'rate_limit') return { status: 429, platform: perMinuteQuota(resource, model) };
  if (name !== undefined && quotaNames.includes(name)) return { status: 429, platform: perDayQuota(resource, model) };
  if (name === 'context_length') return { status: 400, modelLayer: anthropicErrorBodies.promptTooLong };
  if (name === 'content_policy') return { status: 400, modelLayer: anthropicErrorBodies.contentFiltered };
  if (name === 'overloaded') return { status: 529, modelLayer: anthropicErrorBodies.overloaded };
  if (name === 'credential') return { status: 401, platform: unauthenticated(resource, 'expired') };
  const status = faults.status ?? 500;
  if (status === 400) return { status, modelLayer: anthropicErrorBodies.invalidRequest };
  if (status === 500) return { status, modelLayer: anthropicErrorBodies.apiError };
  if (status === 529) return { status, modelLayer: anthropicErrorBodies.overloaded };
  if (status === 429) return { status, platform: perMinuteQuota(resource, model) };
  return platformByStatus(status, resource, model, unavailable);
}

function geminiOnVertexWire(resource: VertexResource): WireFormat {
  return {
    dialect: 'gemini',
    streamContentType: geminiWire.streamContentType,
    malformedFrame: geminiWire.malformedFrame,
    ...geminiAnswers({ vertex: true }),
    inbandError: geminiWire.inbandError,
    error: (faults, request) =>
      faults.errorName === 'content_policy' ? promptBlocked(faults, request) : errorAnswer(geminiErrorSource(faults, resource, request.model), faults),
    invalidRequest: geminiWire.invalidRequest,
  };
}

function geminiErrorSource(faults: ErrorFaults, resource: VertexResource, model: string): ErrorSource {
  const name = faults.errorName;
  // Pay-as-you-go Gemini runs on shared capacity: its 429 names no quota.
  if (name === 'rate_limit') return { status: 429, platform: sharedCapacityExhausted };
  if (name !== undefined && quotaNames.includes(name)) return { status: 429, platform: perDayQuota(resource, model) };
  if (name === 'context_length') return { status: 400, platform: geminiErrorBodies.tokenLimit };
  if (name === 'overloaded') return { status: 503, platform: geminiErrorBodies.unavailable };
  if (name === 'credential') return { status: 401, platform: unauthenticated(resource, 'expired') };
  const status = faults.status ?? 500;
  if (status === 400) return { status, platform: invalidArgument };
  if (status === 429) return { status, platform: sharedCapacityExhausted };
  return platformByStatus(status, resource, model, geminiErrorBodies.unavailable);
}

/** The platform's answer to `status=` for the statuses both publishers share. */
function platformByStatus(status: number, resource: VertexResource, model: string, unavailableBody: GeminiErrorBody): ErrorSource {
  if (status === 401) return { status, platform: unauthenticated(resource, 'unknown') };
  if (status === 403) return { status, platform: permissionDenied(resource, model) };
  if (status === 404) return { status, platform: notFound(resource, model) };
  if (status === 503) return { status, platform: unavailableBody };
  return { status, platform: status === 500 ? internal : { error: { ...internal.error, code: status } } };
}

/** `status=` overrides a named error's status, as on every wire. */
function errorAnswer(source: ErrorSource, faults: ErrorFaults): ErrorAnswer {
  const status = faults.status ?? source.status;
  if ('modelLayer' in source) return { status, body: JSON.stringify(source.modelLayer), headers: retryAfterHeaders(faults) };
  return { status, body: JSON.stringify(withRetryInfo(source.platform, retryDelay(faults))), headers: {} };
}
