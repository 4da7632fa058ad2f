import type { FinishReason } from '../spec.js';

/**
 * Messages API `stop_reason` → canonical. `pause_turn` counts as a stop (the caller may resend
 * to continue); unknown reasons (Anthropic adds them, e.g. `compaction`) too.
 */
export function mapAnthropicStopReason(reason: string | undefined): FinishReason {
  switch (reason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return 'stop';
  }
}
