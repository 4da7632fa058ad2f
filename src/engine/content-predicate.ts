import type { ChatRequest, StreamEvent } from '../providers/spec.js';

/**
 * Which events are content to the caller, the first of them being a stream's commit point: text,
 * refusal and tool calls always; reasoning only where the caller's dialect shows it (docs/lifecycle.md) —
 * reasoning a caller cannot see would otherwise commit a stream that then shows it nothing.
 * Made afresh per attempt: signed reasoning is the text of a block that opened with
 * `reasoning-start` (Anthropic thinking), which unsigned reasoning deltas never do.
 */
export function contentPredicate(shown: ChatRequest['shownReasoning'] = 'all'): (event: StreamEvent) => boolean {
  let signedBlockSeen = false;
  return (event) => {
    switch (event.type) {
      case 'text-delta':
      case 'refusal-delta':
      case 'tool-call-start':
        return true;
      case 'reasoning-start':
        signedBlockSeen = true;
        return false;
      case 'reasoning-delta':
        return shown === 'all' || (shown === 'signed' && signedBlockSeen);
      // Only the Anthropic dialect has a place for encrypted reasoning.
      case 'reasoning-redacted':
        return shown === 'signed';
      default:
        return false;
    }
  };
}
