/** OpenAI Chat Completions, shaped like the captures in test/contract/openai/__fixtures__. */
import { planPieceJson, planText, promptTokens } from './answer.js';
import type { ErrorName, InbandErrorKind } from './directives.js';
import { openaiErrorBodies, openaiInbandErrors, openaiModelNotFoundBody } from './error-bodies.js';
import { retryAfterHeaders } from './retry-after-headers.js';
import type { AnswerPlan, ErrorAnswer, ErrorFaults, StreamFrames, WireFormat } from './wire.js';

const systemFingerprint = 'fp_mock';

const errorsByName: Record<ErrorName, { status: number; body: string }> = {
  insufficient_quota: { status: 429, body: JSON.stringify(openaiErrorBodies.insufficientQuota) },
  // OpenAI reports an exhausted spend limit the same way as an exhausted quota.
  spend_cap: { status: 429, body: JSON.stringify(openaiErrorBodies.insufficientQuota) },
  spend_limit: { status: 429, body: JSON.stringify(openaiErrorBodies.insufficientQuota) },
  context_length: { status: 400, body: JSON.stringify(openaiErrorBodies.contextLengthExceeded) },
  content_policy: { status: 400, body: JSON.stringify(openaiErrorBodies.invalidPromptSafety) },
  rate_limit: { status: 429, body: JSON.stringify(openaiErrorBodies.rateLimitExceeded) },
  overloaded: { status: 503, body: JSON.stringify(openaiErrorBodies.modelOverloaded) },
  credential: { status: 401, body: JSON.stringify(openaiErrorBodies.invalidApiKey) },
};

const bodiesByStatus = new Map<number, string>([
  [400, JSON.stringify(openaiErrorBodies.invalidRequest)],
  [401, JSON.stringify(openaiErrorBodies.invalidApiKey)],
  [403, JSON.stringify(openaiErrorBodies.unsupportedCountry)],
  [429, JSON.stringify(openaiErrorBodies.rateLimitExceeded)],
  [500, JSON.stringify(openaiErrorBodies.serverError)],
  [503, JSON.stringify(openaiErrorBodies.modelOverloaded)],
]);
const genericServerErrorBody = JSON.stringify(openaiErrorBodies.serverError);

const inbandFrames: Record<InbandErrorKind, string> = {
  overloaded: `data: ${JSON.stringify(openaiInbandErrors.overloaded)}\n\n`,
  server_error: `data: ${JSON.stringify(openaiInbandErrors.server_error)}\n\n`,
};

function finishReason(plan: AnswerPlan): string {
  return plan.finish ?? (plan.toolCall === undefined ? 'stop' : 'tool_calls');
}

/** OpenAI reports cache reads (`cached_tokens`), not writes: written tokens are plain prompt tokens. */
function usage(plan: AnswerPlan): object {
  return {
    prompt_tokens: promptTokens(plan),
    completion_tokens: plan.pieceCount,
    total_tokens: promptTokens(plan) + plan.pieceCount,
    prompt_tokens_details: { cached_tokens: plan.cache.readTokens, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function toolCallId(plan: AnswerPlan): string {
  return `call_mock_${plan.n}`;
}

function completion(plan: AnswerPlan): string {
  const message =
    plan.toolCall === undefined
      ? { role: 'assistant', content: planText(plan), refusal: null, annotations: [] }
      : {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: toolCallId(plan), type: 'function', function: { name: plan.toolCall.name, arguments: planText(plan) } },
          ],
          refusal: null,
          annotations: [],
        };
  return JSON.stringify({
    id: `chatcmpl-mock-${plan.n}`,
    object: 'chat.completion',
    created: plan.createdS,
    model: plan.name,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(plan) }],
    usage: usage(plan),
    service_tier: 'default',
    system_fingerprint: systemFingerprint,
  });
}

function stream(plan: AnswerPlan): StreamFrames {
  const chunkStart =
    `data: {"id":"chatcmpl-mock-${plan.n}","object":"chat.completion.chunk","created":${plan.createdS},` +
    `"model":${JSON.stringify(plan.name)},"system_fingerprint":"${systemFingerprint}","choices":`;
  const deltaStart = `${chunkStart}[{"index":0,"delta":`;
  // With include_usage every chunk carries `"usage":null` until the usage chunk, as in the 2026 capture.
  const usageField = plan.includeUsage ? ',"usage":null' : '';
  const openChoiceEnd = `,"logprobs":null,"finish_reason":null}]${usageField}}\n\n`;
  const toolName = plan.toolCall?.name;

  const head =
    toolName === undefined
      ? `${deltaStart}{"role":"assistant","content":"","refusal":null}${openChoiceEnd}`
      : `${deltaStart}{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"${toolCallId(plan)}",` +
        `"type":"function","function":{"name":${JSON.stringify(toolName)},"arguments":""}}],"refusal":null}` +
        openChoiceEnd;

  const piece =
    toolName === undefined
      ? (index: number): string => `${deltaStart}{"content":${planPieceJson(plan, index)}}${openChoiceEnd}`
      : (index: number): string =>
          `${deltaStart}{"tool_calls":[{"index":0,"function":{"arguments":` +
          `${planPieceJson(plan, index)}}}]}${openChoiceEnd}`;

  const tail = (terminate: boolean): string => {
    let text = `${deltaStart}{},"logprobs":null,"finish_reason":"${finishReason(plan)}"}]${usageField}}\n\n`;
    if (plan.includeUsage) text += `${chunkStart}[],"usage":${JSON.stringify(usage(plan))}}\n\n`;
    if (terminate) text += 'data: [DONE]\n\n';
    return text;
  };
  return { head, pieceCount: plan.pieceCount, piece, tail };
}

function error(faults: ErrorFaults, request: { model: string }): ErrorAnswer {
  const headers = retryAfterHeaders(faults);
  if (faults.errorName !== undefined) {
    const named = errorsByName[faults.errorName];
    return { status: faults.status ?? named.status, body: named.body, headers };
  }
  const status = faults.status ?? 500;
  if (status === 404) return { status, body: JSON.stringify(openaiModelNotFoundBody(request.model)), headers };
  return { status, body: bodiesByStatus.get(status) ?? genericServerErrorBody, headers };
}

function invalidRequest(message: string): ErrorAnswer {
  const body = JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code: null } });
  return { status: 400, body, headers: {} };
}

/** Go duration syntax, which OpenAI uses for reset times: `12ms`, `1s`, `6m0s`, `1h0m0s`. */
export function goDuration(seconds: number): string {
  if (seconds === 0) return '0s';
  if (seconds < 1) return `${Math.round(seconds * 1000)}ms`;
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = `${Number((seconds - hours * 3600 - minutes * 60).toFixed(3))}s`;
  if (hours > 0) return `${hours}h${minutes}m${rest}`;
  if (minutes > 0) return `${minutes}m${rest}`;
  return rest;
}

function rateLimitHeaders(limit: number, remaining: number, resetS: number): Record<string, string> {
  const reset = goDuration(resetS);
  return {
    'x-ratelimit-limit-requests': String(limit),
    'x-ratelimit-remaining-requests': String(remaining),
    'x-ratelimit-reset-requests': reset,
    'x-ratelimit-limit-tokens': String(limit),
    'x-ratelimit-remaining-tokens': String(remaining),
    'x-ratelimit-reset-tokens': reset,
  };
}

export const openaiWire: WireFormat = {
  dialect: 'openai',
  requestIdHeader: 'x-request-id',
  streamContentType: 'text/event-stream; charset=utf-8',
  malformedFrame: 'data: {"choices": [\n\n',
  completion,
  stream,
  inbandError: (kind) => inbandFrames[kind],
  error,
  invalidRequest,
  rateLimitHeaders,
};
