import type { UpstreamDialect } from '../providers/spec.js';
import { isRecord, mockAnswerText, mockDegradedPieces, splitIntoPieces } from './answer.js';
import type { AnswerShape } from './directives.js';
import type { PromptUsage } from './prompt-usage.js';
import { requestedJson } from './requested-json.js';
import { schemaValue } from './schema-value.js';
import { mockToolCall, type MockToolCall } from './tool-call.js';
import type { AnswerPlan, WireFormat } from './wire.js';

/** A tool call's arguments stream in this many fragments (fewer when the JSON is shorter), whatever `chunks` says. */
const toolArgumentPieces = 3;

export interface AnswerContent {
  toolCall?: MockToolCall;
  /** Undefined for the standard text. */
  pieces?: string[];
}

/**
 * A tool call (./tool-call.ts) with its arguments in fragments; or, when the answer is not the
 * standard text, its pieces: JSON that fits the requested schema (any JSON object for
 * `json_object`), or the text with a share of its words replaced. A tool call has no text, and
 * JSON is never degraded (it would no longer fit).
 */
export function answerContent(dialect: UpstreamDialect, fields: Record<string, unknown>, shape: AnswerShape): AnswerContent {
  const toolCall = mockToolCall(dialect, fields, shape.toolCall);
  if (toolCall) return { toolCall, pieces: splitIntoPieces(JSON.stringify(toolCall.input), toolArgumentPieces) };
  const json = requestedJson(dialect, fields);
  if (json) {
    const value = json.schema === undefined ? { answer: mockAnswerText(shape.chunks) } : schemaValue(json.schema);
    return { pieces: splitIntoPieces(JSON.stringify(value), shape.chunks) };
  }
  return shape.degrade ? { pieces: mockDegradedPieces(shape.chunks, shape.degrade) } : {};
}

export function answerPlan(
  attempt: { n: number; name: string; nowMs: number },
  fields: Record<string, unknown>,
  shape: AnswerShape,
  { toolCall, pieces }: AnswerContent,
  { inputTokens, cache }: PromptUsage,
): AnswerPlan {
  const streamOptions = fields.stream_options;
  return {
    n: attempt.n,
    name: attempt.name,
    createdS: Math.floor(attempt.nowMs / 1000),
    inputTokens,
    cache,
    pieceCount: pieces?.length ?? shape.chunks,
    ...(pieces ? { pieces } : {}),
    toolCall,
    finish: shape.finish,
    includeUsage: isRecord(streamOptions) && streamOptions.include_usage === true,
  };
}

export function commonHeaders(wire: WireFormat, n: number, shape: AnswerShape, inWindow: boolean, nowMs: number): Record<string, string> {
  const headers: Record<string, string> = {};
  if (wire.requestIdHeader !== undefined) headers[wire.requestIdHeader] = `req_mock_${n}`;
  const rateLimit = shape.rateLimit;
  if (rateLimit && wire.rateLimitHeaders) {
    // A limit that changes once the window has passed: how a provider stepping a limit down looks.
    const limit = inWindow ? rateLimit.limit : (rateLimit.limitAfterWindow ?? rateLimit.limit);
    const remaining = Math.min(rateLimit.remaining, Math.max(0, limit - 1));
    Object.assign(headers, wire.rateLimitHeaders(limit, remaining, rateLimit.resetS, nowMs));
  }
  return headers;
}
