import type { FinishReason } from '../spec.js';

/**
 * Chat Completions `finish_reason` → canonical. Unknown or missing reasons (compatible hosts
 * invent their own, e.g. `eos`) count as a normal stop; the raw word is kept beside it.
 */
export function mapOpenAiFinishReason(reason: string | undefined): FinishReason {
  switch (reason) {
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'content_filter':
      return 'content_filter';
    default:
      return 'stop';
  }
}
