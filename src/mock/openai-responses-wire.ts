/**
 * The OpenAI Responses API, shaped like the recordings in
 * test/contract/openai-responses-dialect/__fixtures__: a `response` object, or its event stream
 * (every event named and numbered, no `[DONE]`). Errors over HTTP are OpenAI's.
 */
import { planPieceJson, planPieceText, planText, promptTokens } from './answer.js';
import type { InbandErrorKind } from './directives.js';
import { openaiWire } from './openai-wire.js';
import type { AnswerPlan, StreamFrames, WireFormat } from './wire.js';

function responseId(plan: AnswerPlan): string {
  return `resp_mock_${plan.n}`;
}

function messageId(plan: AnswerPlan): string {
  return `msg_mock_${plan.n}`;
}

function callItemId(plan: AnswerPlan): string {
  return `fc_mock_${plan.n}`;
}

function usage(plan: AnswerPlan): object {
  return {
    input_tokens: promptTokens(plan),
    input_tokens_details: { cached_tokens: plan.cache.readTokens },
    output_tokens: plan.pieceCount,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: promptTokens(plan) + plan.pieceCount,
  };
}

function incompleteReason(plan: AnswerPlan): string | undefined {
  if (plan.finish === 'length') return 'max_output_tokens';
  if (plan.finish === 'content_filter') return 'content_filter';
  return undefined;
}

function outputItem(plan: AnswerPlan, status: 'in_progress' | 'completed' | 'incomplete'): Record<string, unknown> {
  if (plan.toolCall !== undefined) {
    return {
      id: callItemId(plan),
      type: 'function_call',
      status,
      arguments: status === 'in_progress' ? '' : planText(plan),
      call_id: `call_mock_${plan.n}`,
      name: plan.toolCall.name,
    };
  }
  const content = status === 'in_progress' ? [] : [textPart(planText(plan))];
  return { id: messageId(plan), type: 'message', status, content, role: 'assistant' };
}

function textPart(text: string): Record<string, unknown> {
  return { type: 'output_text', annotations: [], logprobs: [], text };
}

function responseObject(plan: AnswerPlan, status: 'in_progress' | 'completed' | 'incomplete' | 'failed', extra: Record<string, unknown> = {}): Record<string, unknown> {
  const reason = status === 'incomplete' ? incompleteReason(plan) : undefined;
  const done = status === 'completed' || status === 'incomplete';
  return {
    id: responseId(plan),
    object: 'response',
    created_at: plan.createdS,
    status,
    background: false,
    error: null,
    incomplete_details: reason === undefined ? null : { reason },
    model: plan.name,
    output: done ? [outputItem(plan, status === 'incomplete' && plan.toolCall === undefined ? 'incomplete' : 'completed')] : [],
    parallel_tool_calls: true,
    previous_response_id: null,
    store: false,
    tool_choice: 'auto',
    tools: [],
    usage: done ? usage(plan) : null,
    metadata: {},
    ...extra,
  };
}

function finalStatus(plan: AnswerPlan): 'completed' | 'incomplete' {
  return incompleteReason(plan) === undefined ? 'completed' : 'incomplete';
}

function event(type: string, sequence: number, fields: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence, ...fields })}\n\n`;
}

function stream(plan: AnswerPlan): StreamFrames {
  const tool = plan.toolCall !== undefined;
  const itemId = tool ? callItemId(plan) : messageId(plan);
  const place = { item_id: itemId, output_index: 0 };
  const textPlace = { ...place, content_index: 0 };
  const created = responseObject(plan, 'in_progress');
  let head =
    event('response.created', 0, { response: created }) +
    event('response.in_progress', 1, { response: created }) +
    event('response.output_item.added', 2, { output_index: 0, item: outputItem(plan, 'in_progress') });
  if (!tool) head += event('response.content_part.added', 3, { ...textPlace, part: textPart('') });
  const headCount = tool ? 3 : 4;

  const piece = tool
    ? (index: number): string => event('response.function_call_arguments.delta', headCount + index, { ...place, delta: planPieceText(plan, index) })
    : (index: number): string =>
        // The delta is pre-serialised JSON text (the mock serialises each chunk once).
        `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":${headCount + index},` +
        `"item_id":"${itemId}","output_index":0,"content_index":0,"delta":${planPieceJson(plan, index)},"logprobs":[]}\n\n`;

  const tail = (terminate: boolean): string => {
    let sequence = headCount + plan.pieceCount;
    const status = finalStatus(plan);
    const item = outputItem(plan, status === 'incomplete' && !tool ? 'incomplete' : 'completed');
    let text = tool
      ? event('response.function_call_arguments.done', sequence++, { ...place, arguments: planText(plan) })
      : event('response.output_text.done', sequence++, { ...textPlace, text: planText(plan), logprobs: [] }) +
        event('response.content_part.done', sequence++, { ...textPlace, part: textPart(planText(plan)) });
    text += event('response.output_item.done', sequence++, { output_index: 0, item });
    // The terminal event is the stream's last word: there is no `[DONE]`.
    if (terminate) text += event(status === 'completed' ? 'response.completed' : 'response.incomplete', sequence, { response: responseObject(plan, status) });
    return text;
  };
  return { head, pieceCount: plan.pieceCount, piece, tail };
}

const failedResponseStub = (code: string, message: string) => ({
  id: 'resp_mock_failed',
  object: 'response',
  status: 'failed',
  error: { code, message },
  incomplete_details: null,
  output: [],
  usage: null,
});

const overloadedMessage = 'Our servers are currently overloaded. Please try again later.';
const serverErrorMessage = 'An error occurred while processing your request. You can retry your request, or contact us through our help center at help.openai.com if the error persists.';

/**
 * In a 200 stream OpenAI reports failures two ways, both acted out: `overloaded` is an `error`
 * event (its fields nested under `error`, as recorded) followed by `response.failed`;
 * `server_error` is `response.failed` alone. Their sequence numbers are not the stream's.
 */
const inbandFrames: Record<InbandErrorKind, string> = {
  overloaded:
    event('error', 9_000, { error: { type: 'service_unavailable_error', code: 'server_is_overloaded', message: overloadedMessage, param: null } }) +
    event('response.failed', 9_001, { response: failedResponseStub('server_is_overloaded', overloadedMessage) }),
  server_error: event('response.failed', 9_000, { response: failedResponseStub('server_error', serverErrorMessage) }),
};

export const openaiResponsesWire: WireFormat = {
  ...openaiWire,
  dialect: 'openai-responses',
  malformedFrame: 'event: response.output_text.delta\ndata: {"choices": [\n\n',
  completion: (plan) => JSON.stringify(responseObject(plan, finalStatus(plan))),
  stream,
  inbandError: (kind) => inbandFrames[kind],
};
