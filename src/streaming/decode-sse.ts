import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { SseFrame } from '../providers/spec.js';

/**
 * Decodes a byte stream of server-sent events into frames, pulling from the source only as fast
 * as the consumer pulls (a slow caller slows the upstream read). Handles `\n`, `\r\n` and `\r`
 * line endings (Gemini uses `\r\n\r\n`).
 */
export async function* decodeSse(source: AsyncIterable<Uint8Array | string>): AsyncIterable<SseFrame> {
  const pending: SseFrame[] = [];
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      pending.push(message.event ? { event: message.event, data: message.data } : { data: message.data });
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of source) {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    while (pending.length > 0) yield pending.shift()!;
  }
  // An event cut off before its blank line is incomplete and, as in EventSource, dropped.
  parser.feed(decoder.decode());
  while (pending.length > 0) yield pending.shift()!;
}
