import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';
import type { SseFrame } from '../providers/spec.js';
import type { FrameDecoder } from './frame-decoder.js';

/**
 * Server-sent events from a byte stream. Handles `\n`, `\r\n` and `\r` line endings (Gemini uses
 * `\r\n\r\n`) and characters split across reads. An event cut off before its blank line is
 * incomplete and, as in EventSource, never emitted.
 */
export class SseDecoder implements FrameDecoder {
  readonly #decoder = new TextDecoder();
  readonly #parser: EventSourceParser;
  #out: SseFrame[] = [];

  constructor() {
    this.#parser = createParser({
      onEvent: (message: EventSourceMessage) => {
        this.#out.push(message.event ? { event: message.event, data: message.data } : { data: message.data });
      },
    });
  }

  push(chunk: Uint8Array, out: SseFrame[]): void {
    this.#out = out;
    this.#parser.feed(this.#decoder.decode(chunk, { stream: true }));
  }
}
