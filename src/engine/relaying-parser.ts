import type { StreamEvent, StreamParser } from '../providers/spec.js';
import type { SseFrame } from '../streaming/sse-frame.js';
import { withData } from '../streaming/sse-frame-text.js';

/**
 * A relayed stream's parser: the adapter's events of each frame (the engine reads them for the
 * commit point, usage and the finish), then the frame itself as the caller gets it. A frame that
 * is an error or cannot be read is not relayed (the engine ends the stream with its own error, or
 * skips it); nor is the usage-only chunk of a caller that did not ask for usage.
 */
export function relayingParser(parser: StreamParser, options: { includeUsage: boolean }): StreamParser {
  const events: StreamEvent[] = [];
  return {
    get done() {
      return parser.done;
    },
    push(frame: SseFrame, out: StreamEvent[]): void {
      parser.push(frame, events);
      let relayed = true;
      let usageOnly = events.length > 0;
      for (const event of events) {
        out.push(event);
        if (event.type === 'provider-error' || event.type === 'malformed-event') relayed = false;
        else if (event.type !== 'usage') usageOnly = false;
      }
      events.length = 0;
      if (!relayed || (usageOnly && !options.includeUsage)) return;
      out.push(parser.done ? { type: 'relay-frame', text: sseText(frame), last: true } : { type: 'relay-frame', text: sseText(frame) });
    },
  };
}

/** The frame as server-sent-event text: every line of its data (JSON has none but the one) after `data: `. */
function sseText(frame: SseFrame): string {
  return withData(frame.event === undefined ? '' : `event: ${frame.event}\n`, frame.data);
}
