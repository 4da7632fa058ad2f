/**
 * Bedrock Converse and ConverseStream, shaped like the captures in
 * test/contract/bedrock/__fixtures__. The stream is binary `application/vnd.amazon.eventstream`:
 * one event-stream message per event, its type in the `:event-type` header and the bare event
 * object as JSON payload. Bedrock sends no rate-limit or retry-after headers.
 */
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { planPieceJson, planText } from './answer.js';
import { bedrockErrorNamespace, bedrockErrors, bedrockStreamExceptions, type BedrockError } from './bedrock-error-bodies.js';
import type { ErrorName, FinishDirective, InbandErrorKind } from './directives.js';
import { retryAfterHeaders } from './retry-after-headers.js';
import { bedrockReasoningBlock, bedrockReasoningEvents } from './thinking-wire.js';
import type { AnswerPlan, ErrorAnswer, ErrorFaults, StreamFrames, WireFormat } from './wire.js';

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const jsonContentType = { type: 'string', value: 'application/json' } as const;

/** Headers in the order Bedrock writes them. */
function eventMessage(eventType: string, payload: string): Uint8Array {
  return codec.encode({
    headers: {
      ':event-type': { type: 'string', value: eventType },
      ':content-type': jsonContentType,
      ':message-type': { type: 'string', value: 'event' },
    },
    body: fromUtf8(payload),
  });
}

function exceptionMessage(exceptionType: string, payload: string): Uint8Array {
  return codec.encode({
    headers: {
      ':exception-type': { type: 'string', value: exceptionType },
      ':content-type': jsonContentType,
      ':message-type': { type: 'string', value: 'exception' },
    },
    body: fromUtf8(payload),
  });
}

const messageStart = eventMessage('messageStart', '{"role":"assistant"}');
const contentBlockStop = eventMessage('contentBlockStop', '{"contentBlockIndex":0}');

// Bedrock pads event payloads with a junk `p` member of varying length (so sizes do not reveal
// tokens); the mock pads its deltas the same way, so a client that does not ignore it shows up.
const paddingRun = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function padding(index: number): string {
  return paddingRun.slice(0, 1 + (index % paddingRun.length));
}

const errorsByName: Record<ErrorName, BedrockError> = {
  // Bedrock reports an exhausted daily token quota as a throttle.
  insufficient_quota: bedrockErrors.dailyTokens,
  spend_cap: bedrockErrors.dailyTokens,
  spend_limit: bedrockErrors.dailyTokens,
  context_length: bedrockErrors.contextTooLong,
  // Converse guardrails answer 200 with stopReason guardrail_intervened; this is the refusing filters' error.
  content_policy: bedrockErrors.contentFiltered,
  rate_limit: bedrockErrors.throttling,
  overloaded: bedrockErrors.serviceUnavailable,
  credential: bedrockErrors.unrecognizedClient,
};

const errorsByStatus = new Map<number, BedrockError>([
  [400, bedrockErrors.onDemandUnsupported],
  [403, bedrockErrors.accessDenied],
  [404, bedrockErrors.endOfLife],
  [408, bedrockErrors.modelTimeout],
  [424, bedrockErrors.modelError],
  [429, bedrockErrors.throttling],
  [500, bedrockErrors.internalServer],
  [503, bedrockErrors.serviceUnavailable],
]);

const stopReasons: Record<FinishDirective, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  content_filter: 'content_filtered',
};

function stopReason(plan: AnswerPlan): string {
  if (plan.finish !== undefined) return stopReasons[plan.finish];
  return plan.toolCall === undefined ? 'end_turn' : 'tool_use';
}

function toolUseId(plan: AnswerPlan): string {
  return `tooluse_mock_${plan.n}`;
}

function completion(plan: AnswerPlan): string {
  const content =
    plan.toolCall === undefined
      ? [{ text: planText(plan) }]
      : [{ toolUse: { toolUseId: toolUseId(plan), name: plan.toolCall.name, input: plan.toolCall.input } }];
  return JSON.stringify({
    metrics: { latencyMs: 0 },
    output: { message: { content: plan.thinking === undefined ? content : [bedrockReasoningBlock(plan.thinking), ...content], role: 'assistant' } },
    stopReason: stopReason(plan),
    usage: {
      cacheReadInputTokenCount: plan.cache.readTokens,
      cacheReadInputTokens: plan.cache.readTokens,
      cacheWriteInputTokenCount: plan.cache.writeTokens,
      cacheWriteInputTokens: plan.cache.writeTokens,
      ...usage(plan),
    },
  });
}

/**
 * Converse's `inputTokens` leaves out cache reads and writes, counted apart (a stream's `metadata`
 * names them only when there are some); `cacheDetails` breaks the writes down by TTL.
 */
function usage(plan: AnswerPlan): object {
  const { readTokens, writeTokens, writeTtl } = plan.cache;
  return {
    ...(readTokens > 0 || writeTokens > 0 ? { cacheReadInputTokens: readTokens, cacheWriteInputTokens: writeTokens } : {}),
    ...(writeTokens > 0 ? { cacheDetails: [{ inputTokens: writeTokens, ttl: writeTtl }] } : {}),
    inputTokens: plan.inputTokens,
    outputTokens: plan.pieceCount,
    serverToolUsage: {},
    totalTokens: plan.inputTokens + readTokens + writeTokens + plan.pieceCount,
  };
}

/**
 * messageStart → (contentBlockStart for a tool) → contentBlockDelta × N → contentBlockStop →
 * messageStop → metadata.
 */
function stream(plan: AnswerPlan): StreamFrames {
  const toolName = plan.toolCall?.name;
  // Signed reasoning comes first, as block 0; the answer's block follows it.
  const reasoning = plan.thinking === undefined ? [] : bedrockReasoningEvents(plan.thinking).map(([type, payload]) => eventMessage(type, JSON.stringify(payload)));
  const index = reasoning.length === 0 ? 0 : 1;
  const head = Buffer.concat([
    messageStart,
    ...reasoning,
    ...(toolName === undefined
      ? []
      : [eventMessage('contentBlockStart', JSON.stringify({ contentBlockIndex: index, start: { toolUse: { toolUseId: toolUseId(plan), name: toolName } } }))]),
  ]);
  const delta =
    toolName === undefined
      ? (index: number): string => `{"text":${planPieceJson(plan, index)}}`
      : (index: number): string => `{"toolUse":{"input":${planPieceJson(plan, index)}}}`;
  const piece = (at: number): Uint8Array =>
    eventMessage('contentBlockDelta', `{"contentBlockIndex":${index},"delta":${delta(at)},"p":"${padding(at)}"}`);

  const tail = (terminate: boolean): Uint8Array => {
    const blockStop = index === 0 ? contentBlockStop : eventMessage('contentBlockStop', `{"contentBlockIndex":${index}}`);
    const frames = [blockStop, eventMessage('messageStop', JSON.stringify({ stopReason: stopReason(plan) }))];
    // Usage comes only in this last event, after messageStop.
    if (terminate) frames.push(eventMessage('metadata', JSON.stringify({ usage: usage(plan), metrics: { latencyMs: 0 } })));
    return Buffer.concat(frames);
  };
  return { head, pieceCount: plan.pieceCount, piece, tail };
}

function errorType(error: BedrockError): string {
  return `${error.type}:${error.namespace ?? bedrockErrorNamespace}`;
}

function error(faults: ErrorFaults): ErrorAnswer {
  const named = faults.errorName === undefined ? undefined : errorsByName[faults.errorName];
  const status = faults.status ?? named?.status ?? 500;
  const chosen = named ?? errorsByStatus.get(status) ?? bedrockErrors.internalServer;
  // Bedrock never sends retry-after; the mock adds it only when a directive asks.
  const headers = { 'x-amzn-errortype': errorType(chosen), ...retryAfterHeaders(faults) };
  return { status, body: JSON.stringify(chosen.body), headers };
}

function invalidRequest(message: string): ErrorAnswer {
  const validation: BedrockError = { type: 'ValidationException', status: 400, body: { message } };
  return { status: 400, body: JSON.stringify(validation.body), headers: { 'x-amzn-errortype': errorType(validation) } };
}

const inbandFrames: Record<InbandErrorKind, Uint8Array> = {
  overloaded: exceptionMessage(bedrockStreamExceptions.overloaded.type, JSON.stringify(bedrockStreamExceptions.overloaded.body)),
  server_error: exceptionMessage(
    bedrockStreamExceptions.server_error.type,
    JSON.stringify(bedrockStreamExceptions.server_error.body),
  ),
};

export const bedrockWire: WireFormat = {
  dialect: 'bedrock',
  requestIdHeader: 'x-amzn-requestid',
  streamContentType: 'application/vnd.amazon.eventstream',
  // Valid framing and CRCs around a payload that is not JSON.
  malformedFrame: eventMessage('contentBlockDelta', '{"choices": ['),
  completion,
  stream,
  inbandError: (kind) => inbandFrames[kind],
  error,
  invalidRequest,
};
