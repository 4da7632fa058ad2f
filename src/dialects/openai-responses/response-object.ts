import type { Usage } from '../../core/usage.js';
import type { FinishReason } from '../../providers/spec.js';
import type { ResponsesEcho } from './responses-echo.js';
import { spliceTopLevel } from '../../providers/shared/splice-json.js';

/**
 * The gateway's id for a response, from its request id: unique as that is, never the upstream's
 * (an answer from a second target must not look like the first's), and it names the record.
 */
export function responseIdOf(requestId: string): string {
  return `resp_${requestId.startsWith('req_') ? requestId.slice(4) : requestId}`;
}

/** A relayed event's text with its `response` under the gateway's id, every other byte as the provider wrote it. */
export function withResponseId(eventText: string, responseId: string): string {
  return spliceTopLevel(eventText, { response: (present) => (present === undefined ? undefined : spliceTopLevel(present, { id: JSON.stringify(responseId) })) });
}

/** An output item's id (`msg_…`, `fc_…`, `rs_…`), unique within and across responses. */
export function itemIdOf(prefix: 'msg' | 'fc' | 'rs', responseId: string, outputIndex: number): string {
  return `${prefix}_${responseId.slice(5)}_${outputIndex}`;
}

/** A finish the Responses API reports as `incomplete`, and why; undefined for `completed`. */
export function incompleteReasonOf(finish: FinishReason | undefined): 'max_output_tokens' | 'content_filter' | undefined {
  if (finish === 'length') return 'max_output_tokens';
  if (finish === 'content_filter') return 'content_filter';
  return undefined;
}

function toResponsesUsage(usage: Usage): Record<string, unknown> {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cacheReadTokens ?? 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

export interface ResponseState {
  id: string;
  createdAt: number;
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
  model: string;
  output: readonly unknown[];
  usage?: Usage | undefined;
  incompleteReason?: 'max_output_tokens' | 'content_filter' | undefined;
  error?: { code: string; message: string } | undefined;
}

/** A Responses `response` object in the field order OpenAI sends, the request's settings echoed. */
export function responseObject(state: ResponseState, echo: ResponsesEcho): Record<string, unknown> {
  return {
    id: state.id,
    object: 'response',
    created_at: state.createdAt,
    status: state.status,
    background: false,
    error: state.error ?? null,
    incomplete_details: state.incompleteReason ? { reason: state.incompleteReason } : null,
    instructions: echo.instructions,
    max_output_tokens: echo.max_output_tokens,
    max_tool_calls: null,
    model: state.model,
    output: state.output,
    parallel_tool_calls: echo.parallel_tool_calls,
    previous_response_id: echo.previous_response_id,
    reasoning: echo.reasoning,
    store: echo.store,
    temperature: echo.temperature,
    text: echo.text,
    tool_choice: echo.tool_choice,
    tools: echo.tools,
    top_p: echo.top_p,
    truncation: 'disabled',
    usage: state.usage ? toResponsesUsage(state.usage) : null,
    user: echo.user,
    metadata: echo.metadata,
  };
}
