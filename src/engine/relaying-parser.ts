import type { StreamEvent, StreamParser } from '../providers/spec.js';
import type { SseFrame } from '../streaming/sse-frame.js';

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
      const relayed = !events.some((event) => event.type === 'provider-error' || event.type === 'malformed-event') && (options.includeUsage || !usageOnly(events));
      for (const event of events) out.push(event);
      if (relayed) out.push({ type: 'relay-frame', text: sseText(frame), ...(parser.done ? { last: true as const } : {}) });
      events.length = 0;
    },
  };
}

function usageOnly(events: readonly StreamEvent[]): boolean {
  return events.length > 0 && events.every((event) => event.type === 'usage');
}

/** The frame as server-sent-event text: every line of its data (JSON has none but the one) after `data: `. */
function sseText(frame: SseFrame): string {
  const data = `data: ${frame.data.replaceAll('\n', '\ndata: ')}\n\n`;
  return frame.event === undefined ? data : `event: ${frame.event}\n${data}`;
}
