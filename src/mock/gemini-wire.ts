/**
 * Gemini `generateContent` and `streamGenerateContent?alt=sse`, shaped like the captures in
 * test/contract/gemini/__fixtures__. Gemini sends no request-id or rate-limit headers and puts
 * its retry hint in the error body (google.rpc.RetryInfo), so the mock does the same.
 */
import { planPieceText, planText, promptTokens } from './answer.js';
import type { ErrorName, FinishDirective, InbandErrorKind } from './directives.js';
import {
  geminiErrorBodies,
  geminiInbandErrors,
  geminiNotFoundBody,
  geminiPromptBlocked,
  type GeminiErrorBody,
} from './gemini-error-bodies.js';
import type { AnswerPlan, ErrorAnswer, ErrorFaults, StreamFrames, WireFormat } from './wire.js';

const streamContentType = 'text/event-stream';

/** A blocked prompt is not an error on Gemini, so `content_policy` is answered apart (see `error`). */
const errorsByName: Record<Exclude<ErrorName, 'content_policy'>, { status: number; body: GeminiErrorBody }> = {
  // Gemini has no spend cap of its own; an exhausted daily quota is the nearest thing.
  insufficient_quota: { status: 429, body: geminiErrorBodies.dailyQuotaExhausted },
  spend_cap: { status: 429, body: geminiErrorBodies.dailyQuotaExhausted },
  spend_limit: { status: 429, body: geminiErrorBodies.dailyQuotaExhausted },
  context_length: { status: 400, body: geminiErrorBodies.tokenLimit },
  rate_limit: { status: 429, body: geminiErrorBodies.resourceExhausted },
  overloaded: { status: 503, body: geminiErrorBodies.unavailable },
  // A bad API key is a 400 on Gemini, not a 401.
  credential: { status: 400, body: geminiErrorBodies.apiKeyInvalid },
};

const bodiesByStatus = new Map<number, GeminiErrorBody>([
  [400, geminiErrorBodies.invalidArgument],
  [401, geminiErrorBodies.unauthenticated],
  [403, geminiErrorBodies.permissionDenied],
  [429, geminiErrorBodies.resourceExhausted],
  [500, geminiErrorBodies.internal],
  [503, geminiErrorBodies.unavailable],
]);

const finishReasons: Record<FinishDirective, string> = {
  stop: 'STOP',
  length: 'MAX_TOKENS',
  content_filter: 'SAFETY',
};

/** SSE as Gemini frames it: CRLF line ends. */
function chunk(json: object): string {
  return `data: ${JSON.stringify(json)}\r\n\r\n`;
}

/**
 * How an answer differs between the Gemini API and Vertex AI, which serve the same
 * GenerateContentResponse: Vertex stamps `createTime` and `usageMetadata.trafficType` on every
 * response and, streaming, sends the counts only in the last chunk (./vertex-wire.ts).
 */
export interface GeminiAnswerHome {
  vertex: boolean;
}

const geminiApi: GeminiAnswerHome = { vertex: false };

/** Every stream chunk reports the usage so far (Vertex: only the finishing one does). */
function usageMetadata(plan: AnswerPlan, outputTokens: number, home: GeminiAnswerHome): object {
  // Gemini counts cached tokens in the prompt and names them apart only when there are some; it reports no writes.
  const cached = plan.cache.readTokens > 0 ? { cachedContentTokenCount: plan.cache.readTokens } : {};
  const counts = {
    promptTokenCount: promptTokens(plan),
    candidatesTokenCount: outputTokens,
    totalTokenCount: promptTokens(plan) + outputTokens,
    ...cached,
  };
  const promptTokensDetails = [{ modality: 'TEXT', tokenCount: promptTokens(plan) }];
  if (!home.vertex) return { ...counts, promptTokensDetails };
  return {
    ...counts,
    trafficType: 'ON_DEMAND',
    promptTokensDetails,
    candidatesTokensDetails: [{ modality: 'TEXT', tokenCount: outputTokens }],
  };
}

/** A response or stream chunk; only the last one carries `finishReason` (and, on Vertex, the counts). */
function response(plan: AnswerPlan, parts: object[], finished: boolean, outputTokens: number, home: GeminiAnswerHome): object {
  const candidate: Record<string, unknown> = { content: { parts, role: 'model' } };
  if (finished) candidate.finishReason = plan.finish === undefined ? 'STOP' : finishReasons[plan.finish];
  candidate.index = 0;
  // Gemini has no tool-call finish reason: a call ends with STOP, and the real API adds this message.
  if (finished && plan.toolCall !== undefined && plan.finish === undefined) {
    candidate.finishMessage = 'Model generated function call(s).';
  }
  const usage = home.vertex && !finished ? { trafficType: 'ON_DEMAND' } : usageMetadata(plan, outputTokens, home);
  return {
    candidates: [candidate],
    usageMetadata: usage,
    modelVersion: plan.name,
    ...(home.vertex ? { createTime: new Date(plan.createdS * 1000).toISOString() } : {}),
    responseId: `resp_mock_${plan.n}`,
  };
}

function answerParts(plan: AnswerPlan): object[] {
  return plan.toolCall === undefined
    ? [{ text: planText(plan) }]
    : [{ functionCall: { name: plan.toolCall.name, args: plan.toolCall.input } }];
}

/** The answers, whole and streamed, as the Gemini API or Vertex (`home`) words them. */
export function geminiAnswers(home: GeminiAnswerHome): Pick<WireFormat, 'completion' | 'stream'> {
  return {
    completion: (plan) => JSON.stringify(response(plan, answerParts(plan), true, plan.pieceCount, home)),
    stream: (plan) => stream(plan, home),
  };
}

/**
 * Text streams one chunk per piece, then a finishing chunk with an empty text part (as Gemini 3
 * does), so a stream cut after the last piece still lacks its finish. A tool call arrives whole in
 * one finishing chunk, as Gemini streams function calls: that stream has no pieces.
 */
function stream(plan: AnswerPlan, home: GeminiAnswerHome): StreamFrames {
  const isToolCall = plan.toolCall !== undefined;
  return {
    head: '',
    pieceCount: isToolCall ? 0 : plan.pieceCount,
    piece: (index) => chunk(response(plan, [{ text: planPieceText(plan, index) }], false, index + 1, home)),
    tail: () => chunk(response(plan, isToolCall ? answerParts(plan) : [{ text: '' }], true, plan.pieceCount, home)),
  };
}

/** google.rpc.RetryInfo's delay, a protobuf Duration (`26s`, `1.5s`): from retry_after, else retry_after_ms. */
export function retryDelay(faults: ErrorFaults): string | undefined {
  if (faults.retryAfterS !== undefined) return `${Number(faults.retryAfterS)}s`;
  if (faults.retryAfterMs !== undefined) return `${faults.retryAfterMs / 1000}s`;
  return undefined;
}

export function withRetryInfo(body: GeminiErrorBody, delay: string | undefined): GeminiErrorBody {
  if (delay === undefined) return body;
  const retryInfo = { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: delay };
  return { error: { ...body.error, details: [...(body.error.details ?? []), retryInfo] } };
}

/** Gemini's answer to a blocked prompt: a 200 (unless `status=` says otherwise) with `promptFeedback`, an SSE chunk when streaming. */
export function promptBlocked(faults: ErrorFaults, request: { stream: boolean }): ErrorAnswer {
  const status = faults.status ?? 200;
  return request.stream
    ? { status, body: chunk(geminiPromptBlocked), headers: {}, contentType: streamContentType }
    : { status, body: JSON.stringify(geminiPromptBlocked), headers: {} };
}

function error(faults: ErrorFaults, request: { model: string; stream: boolean }): ErrorAnswer {
  if (faults.errorName === 'content_policy') return promptBlocked(faults, request);
  let status: number;
  let body: GeminiErrorBody;
  if (faults.errorName !== undefined) {
    const named = errorsByName[faults.errorName];
    status = faults.status ?? named.status;
    body = named.body;
  } else {
    status = faults.status ?? 500;
    body =
      status === 404
        ? geminiNotFoundBody(request.model)
        : (bodiesByStatus.get(status) ?? { error: { ...geminiErrorBodies.internal.error, code: status } });
  }
  return { status, body: JSON.stringify(withRetryInfo(body, retryDelay(faults))), headers: {} };
}

function invalidRequest(message: string): ErrorAnswer {
  const body = JSON.stringify({ error: { code: 400, message, status: 'INVALID_ARGUMENT' } });
  return { status: 400, body, headers: {} };
}

const inbandFrames: Record<InbandErrorKind, string> = {
  overloaded: `${JSON.stringify(geminiInbandErrors.overloaded)}\n`,
  server_error: `${JSON.stringify(geminiInbandErrors.server_error)}\n`,
};

export const geminiWire: WireFormat = {
  dialect: 'gemini',
  streamContentType,
  malformedFrame: 'data: {"candidates": [\r\n\r\n',
  ...geminiAnswers(geminiApi),
  inbandError: (kind) => inbandFrames[kind],
  error,
  invalidRequest,
};
