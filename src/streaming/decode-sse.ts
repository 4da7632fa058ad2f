import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceMessage, type EventSourceParser, type ParseError } from 'eventsource-parser';
import type { SseFrame } from './sse-frame.js';
import type { FrameDecoder } from './frame-decoder.js';

/**
 * The most one event may hold, in characters. Far beyond any real event (a whole long answer is a
 * few hundred KB); a stream that grows one event past it is broken or hostile, and is ended rather
 * than buffered until memory runs out.
 */
const MAX_SSE_EVENT_CHARS = 16 * 1024 * 1024;

/** Thrown when an upstream stream can no longer be framed; the attempt ends as a broken connection. */
export class BrokenStreamError extends Error {
  readonly code = 'STREAM_FRAMING_BROKEN';

  constructor(message: string) {
    super(message);
    this.name = 'BrokenStreamError';
  }
}

/**
 * Server-sent events from a byte stream. Handles `\n`, `\r\n` and `\r` line endings (Gemini uses
 * `\r\n\r\n`) and characters split across reads. An event cut off before its blank line is
 * incomplete and, as in EventSource, never emitted; a bare JSON line is a frame by itself.
 */
export class SseDecoder implements FrameDecoder {
  // Node's StringDecoder rather than TextDecoder: the same handling of a character split across
  // reads, at a fifth of the cost (≈2 µs instead of 13 µs for a 15 KB stream).
  readonly #decoder = new StringDecoder('utf8');
  readonly #parser: EventSourceParser;
  readonly #maxEventChars: number;
  #out: SseFrame[] = [];
  #overflowed = false;

  constructor(maxEventChars: number = MAX_SSE_EVENT_CHARS) {
    this.#maxEventChars = maxEventChars;
    this.#parser = createParser({
      maxBufferSize: maxEventChars,
      onEvent: (message: EventSourceMessage) => {
        this.#out.push(message.event ? { event: message.event, data: message.data } : { data: message.data });
      },
      // Gemini reports an error after its 200 as a bare JSON line, outside any `data:` field:
      // it becomes a frame of its own so that the adapter can read it, instead of being dropped.
      onError: (error: ParseError) => {
        if (error.type === 'max-buffer-size-exceeded') this.#overflowed = true;
        const line = error.line?.trim();
        if (error.type === 'unknown-field' && line?.startsWith('{')) this.#out.push({ data: line });
      },
    });
  }

  push(chunk: Uint8Array, out: SseFrame[]): void {
    this.#out = out;
    this.#parser.feed(this.#decoder.write(chunk));
    if (this.#overflowed) throw new BrokenStreamError(`an upstream event grew past ${this.#maxEventChars} characters`);
  }
}
