/** Anthropic Messages, shaped like the captures in test/contract/anthropic/__fixtures__. */
import { planPieceJson, planText } from './answer.js';
import type { ErrorName, FinishDirective, InbandErrorKind } from './directives.js';
import { anthropicErrorBodies, anthropicInbandErrors, anthropicNotFoundBody } from './error-bodies.js';
import { retryAfterHeaders } from './retry-after-headers.js';
import { anthropicThinkingBlock, anthropicThinkingEvents } from './thinking-wire.js';
import type { AnswerPlan, ErrorAnswer, ErrorFaults, StreamFrames, WireFormat } from './wire.js';

const errorsByName: Record<ErrorName, { status: number; body: string }> = {
  spend_cap: { status: 429, body: JSON.stringify(anthropicErrorBodies.spendCapEnforced) },
  // An exhausted OpenAI quota is Anthropic's enforced spend cap.
  insufficient_quota: { status: 429, body: JSON.stringify(anthropicErrorBodies.spendCapEnforced) },
  spend_limit: { status: 400, body: JSON.stringify(anthropicErrorBodies.userSpendLimit) },
  context_length: { status: 400, body: JSON.stringify(anthropicErrorBodies.promptTooLong) },
  content_policy: { status: 400, body: JSON.stringify(anthropicErrorBodies.contentFiltered) },
  rate_limit: { status: 429, body: JSON.stringify(anthropicErrorBodies.rateLimit) },
  overloaded: { status: 529, body: JSON.stringify(anthropicErrorBodies.overloaded) },
  credential: { status: 401, body: JSON.stringify(anthropicErrorBodies.authentication) },
};

const bodiesByStatus = new Map<number, string>([
  [400, JSON.stringify(anthropicErrorBodies.invalidRequest)],
  [401, JSON.stringify(anthropicErrorBodies.authentication)],
  [403, JSON.stringify(anthropicErrorBodies.permission)],
  [429, JSON.stringify(anthropicErrorBodies.rateLimit)],
  [500, JSON.stringify(anthropicErrorBodies.apiError)],
  [529, JSON.stringify(anthropicErrorBodies.overloaded)],
]);
const genericServerErrorBody = JSON.stringify(anthropicErrorBodies.apiError);

const inbandFrames: Record<InbandErrorKind, string> = {
  overloaded: `event: error\ndata: ${JSON.stringify(anthropicInbandErrors.overloaded)}\n\n`,
  server_error: `event: error\ndata: ${JSON.stringify(anthropicInbandErrors.server_error)}\n\n`,
};

const stopReasons: Record<FinishDirective, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  content_filter: 'refusal',
};

function stopReason(plan: AnswerPlan): string {
  if (plan.finish !== undefined) return stopReasons[plan.finish];
  return plan.toolCall === undefined ? 'end_turn' : 'tool_use';
}

/** Anthropic's `input_tokens` leaves out cache reads and writes, which it counts apart (writes by TTL too). */
function usage(plan: AnswerPlan, outputTokens: number): object {
  const { readTokens, writeTokens, writeTtl } = plan.cache;
  return {
    input_tokens: plan.inputTokens,
    cache_creation_input_tokens: writeTokens,
    cache_read_input_tokens: readTokens,
    cache_creation: {
      ephemeral_5m_input_tokens: writeTtl === '5m' ? writeTokens : 0,
      ephemeral_1h_input_tokens: writeTtl === '1h' ? writeTokens : 0,
    },
    output_tokens: outputTokens,
  };
}

function messageId(plan: AnswerPlan): string {
  return `msg_mock_${plan.n}`;
}

function toolUseId(plan: AnswerPlan): string {
  return `toolu_mock_${plan.n}`;
}

function completion(plan: AnswerPlan): string {
  const content =
    plan.toolCall === undefined
      ? [{ type: 'text', text: planText(plan) }]
      : [{ type: 'tool_use', id: toolUseId(plan), name: plan.toolCall.name, input: plan.toolCall.input }];
  return JSON.stringify({
    model: plan.name,
    id: messageId(plan),
    type: 'message',
    role: 'assistant',
    content: plan.thinking === undefined ? content : [anthropicThinkingBlock(plan.thinking), ...content],
    stop_reason: stopReason(plan),
    stop_sequence: null,
    usage: usage(plan, plan.pieceCount),
  });
}

function event(type: string, data: string): string {
  return `event: ${type}\ndata: ${data}\n\n`;
}

function stream(plan: AnswerPlan): StreamFrames {
  const toolName = plan.toolCall?.name;
  const message = {
    model: plan.name,
    id: messageId(plan),
    type: 'message',
    role: 'assistant',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    // The real API reports one output token before any content is generated.
    usage: usage(plan, 1),
  };
  const block =
    toolName === undefined
      ? '{"type":"text","text":""}'
      : `{"type":"tool_use","id":"${toolUseId(plan)}","name":${JSON.stringify(toolName)},"input":{}}`;
  // Signed thinking comes first, as block 0; the answer's block follows it.
  const thinking = plan.thinking === undefined ? [] : anthropicThinkingEvents(plan.thinking);
  const index = thinking.length === 0 ? 0 : 1;
  const head =
    event('message_start', JSON.stringify({ type: 'message_start', message })) +
    thinking.map(([type, data]) => event(type, JSON.stringify(data))).join('') +
    event('content_block_start', `{"type":"content_block_start","index":${index},"content_block":${block}}`) +
    event('ping', '{"type":"ping"}');

  const piece =
    toolName === undefined
      ? (at: number): string =>
          event(
            'content_block_delta',
            `{"type":"content_block_delta","index":${index},"delta":{"type":"text_delta","text":${planPieceJson(plan, at)}}}`,
          )
      : (at: number): string =>
          event(
            'content_block_delta',
            `{"type":"content_block_delta","index":${index},"delta":{"type":"input_json_delta","partial_json":` +
              `${planPieceJson(plan, at)}}}`,
          );

  const tail = (terminate: boolean): string => {
    const delta = { stop_reason: stopReason(plan), stop_sequence: null };
    let text =
      event('content_block_stop', `{"type":"content_block_stop","index":${index}}`) +
      event('message_delta', JSON.stringify({ type: 'message_delta', delta, usage: usage(plan, plan.pieceCount) }));
    if (terminate) text += event('message_stop', '{"type":"message_stop"}');
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
  if (status === 404) return { status, body: JSON.stringify(anthropicNotFoundBody(request.model)), headers };
  return { status, body: bodiesByStatus.get(status) ?? genericServerErrorBody, headers };
}

function invalidRequest(message: string): ErrorAnswer {
  const body = JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message } });
  return { status: 400, body, headers: {} };
}

/** RFC 3339 at whole seconds, as the API writes them (`2026-02-25T20:02:37Z`). */
function resetTimestamp(nowMs: number, resetS: number): string {
  const atMs = Math.ceil((nowMs + resetS * 1000) / 1000) * 1000;
  return new Date(atMs).toISOString().replace('.000Z', 'Z');
}

function rateLimitHeaders(limit: number, remaining: number, resetS: number, nowMs: number): Record<string, string> {
  const reset = resetTimestamp(nowMs, resetS);
  const headers: Record<string, string> = {};
  for (const family of ['requests', 'tokens', 'input-tokens', 'output-tokens']) {
    headers[`anthropic-ratelimit-${family}-limit`] = String(limit);
    headers[`anthropic-ratelimit-${family}-remaining`] = String(remaining);
    headers[`anthropic-ratelimit-${family}-reset`] = reset;
  }
  return headers;
}

export const anthropicWire: WireFormat = {
  dialect: 'anthropic',
  requestIdHeader: 'request-id',
  streamContentType: 'text/event-stream; charset=utf-8',
  malformedFrame: 'event: content_block_delta\ndata: {"choices": [\n\n',
  completion,
  stream,
  inbandError: (kind) => inbandFrames[kind],
  error,
  invalidRequest,
  rateLimitHeaders,
};
