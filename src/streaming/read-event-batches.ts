import type { FrameDecoder } from './frame-decoder.js';
import type { SseFrame } from './sse-frame.js';

/** What turns frames into events: a provider adapter's stream parser. */
export interface FrameParser<Event> {
  /** Appends the events `frame` yields to `out`. */
  push(frame: SseFrame, out: Event[]): void;
  /** True once the stream has said its last word: nothing after it is read. */
  readonly done: boolean;
}

/**
 * An upstream stream as batches of canonical events, one batch per network read that completed
 * at least one event: the decoding and translation of a read run synchronously, so the async
 * cost is per read, not per event. Ends when the body ends or the parser has heard the last word.
 */
export async function* readEventBatches<Event>(
  body: AsyncIterable<Uint8Array>,
  decoder: FrameDecoder,
  parser: FrameParser<Event>,
): AsyncGenerator<Event[], void, undefined> {
  const frames: SseFrame[] = [];
  for await (const chunk of body) {
    // A corrupt frame ends the stream, but the frames before it in the same read still count.
    let corrupt: { error: unknown } | undefined;
    try {
      decoder.push(chunk, frames);
    } catch (error) {
      corrupt = { error };
    }
    const events: Event[] = [];
    for (const frame of frames) {
      parser.push(frame, events);
      if (parser.done) break;
    }
    frames.length = 0;
    if (events.length > 0) yield events;
    if (parser.done) return;
    if (corrupt) throw corrupt.error;
  }
}
