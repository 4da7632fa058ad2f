import type { ChatResult } from '../../providers/spec.js';
import { declaredToolName } from './namespaced-tool-name.js';
import { incompleteReasonOf, itemIdOf, responseIdOf, responseObject } from './response-object.js';
import type { ResponsesEcho } from './responses-echo.js';

/**
 * A complete answer as a Responses `response` object: reasoning (as a summary, when the caller
 * asked for one), items a Responses upstream sent that the canonical answer has no form for
 * (encrypted reasoning joins the summary's item), then the message, then one `function_call`
 * item per call.
 */
export function renderOpenAiResponse(result: ChatResult, requestId: string, echo: ResponsesEcho): Record<string, unknown> {
  const id = responseIdOf(requestId);
  const incompleteReason = incompleteReasonOf(result.finishReason);
  const output: Record<string, unknown>[] = [];
  if (result.reasoning && echo.reasoning.summary !== null) {
    output.push({ id: itemIdOf('rs', id, output.length), type: 'reasoning', summary: [{ type: 'summary_text', text: result.reasoning }] });
  }
  for (const item of result.outputItems ?? []) {
    const summary = output[0];
    if (item.type === 'reasoning' && summary?.type === 'reasoning' && summary.encrypted_content === undefined) summary.encrypted_content = item.encrypted_content;
    else output.push(item);
  }
  const content: Record<string, unknown>[] = [];
  if (result.text !== '') content.push({ type: 'output_text', annotations: [], logprobs: [], text: result.text });
  if (result.refusal !== undefined) content.push({ type: 'refusal', refusal: result.refusal });
  if (content.length > 0) {
    output.push({
      id: itemIdOf('msg', id, output.length),
      type: 'message',
      status: incompleteReason ? 'incomplete' : 'completed',
      content,
      role: 'assistant',
    });
  }
  for (const call of result.toolCalls) {
    output.push(functionCallItem(itemIdOf('fc', id, output.length), call, echo.tools, 'completed'));
  }
  return responseObject(
    {
      id,
      createdAt: result.created ?? Math.floor(Date.now() / 1000),
      status: incompleteReason ? 'incomplete' : 'completed',
      model: result.responseModel,
      output,
      usage: result.usage,
      incompleteReason,
    },
    echo,
  );
}

/** A `function_call` output item, the namespace split back out of a flattened name. */
export function functionCallItem(
  itemId: string,
  call: { id: string; name: string; arguments: string },
  tools: readonly unknown[],
  status: 'in_progress' | 'completed',
): Record<string, unknown> {
  const declared = declaredToolName(call.name, tools);
  return {
    id: itemId,
    type: 'function_call',
    status,
    arguments: call.arguments,
    call_id: call.id,
    name: declared.name,
    ...(declared.namespace === undefined ? {} : { namespace: declared.namespace }),
  };
}
