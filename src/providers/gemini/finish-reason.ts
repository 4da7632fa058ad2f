import type { FinishReason } from '../spec.js';

const CONTENT_FILTER_REASONS = new Set([
  'SAFETY',
  'RECITATION',
  'LANGUAGE',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
  'IMAGE_OTHER',
  'NO_IMAGE',
]);
/** The model's output could not be used as a tool call: no canonical reason fits but `error`. */
const ERROR_REASONS = new Set(['MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL', 'TOO_MANY_TOOL_CALLS']);

/**
 * `finishReason` → canonical. Gemini has no tool-call reason: a turn that called functions ends
 * with `STOP`, so the caller says whether it did. `OTHER`, unspecified and unknown reasons count
 * as a normal end, like `STOP`; the raw word is kept beside it.
 */
export function mapGeminiFinishReason(reason: string | undefined, calledFunctions: boolean): FinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (CONTENT_FILTER_REASONS.has(reason ?? '')) return 'content_filter';
  if (ERROR_REASONS.has(reason ?? '')) return 'error';
  return calledFunctions ? 'tool_calls' : 'stop';
}
