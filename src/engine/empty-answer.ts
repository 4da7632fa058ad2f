import type { ChatResult, FinishReason, UpstreamFailure } from '../providers/spec.js';

export const EMPTY_ANSWER: UpstreamFailure = { kind: 'empty_answer', message: 'the provider answered 200 with no content, no tool call and no refusal' };

/**
 * Whether an answer that carried nothing for the caller (no text, tool call, refusal or output
 * item) and then finished this way is an empty answer. A `length` finish is not: its tokens went
 * somewhere (reasoning, a small max_tokens), and another target would spend them too.
 */
export function finishedEmpty(reason: FinishReason): boolean {
  return reason !== 'length';
}

/** A whole answer with nothing in it for the caller. */
export function isEmptyResult(result: ChatResult): boolean {
  const nothing = result.text === '' && result.toolCalls.length === 0 && !result.refusal && (result.outputItems?.length ?? 0) === 0;
  return nothing && finishedEmpty(result.finishReason);
}
