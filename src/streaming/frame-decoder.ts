import type { SseFrame } from './sse-frame.js';

/** How an upstream frames its stream: server-sent events, or Bedrock's binary event stream. */
export type StreamFraming = 'sse' | 'aws-eventstream';

/**
 * Turns the bytes of a streamed answer into frames, as they arrive. Push-based and synchronous:
 * one network read becomes one batch of frames.
 */
export interface FrameDecoder {
  /** Appends the frames that `chunk` completes to `out`; an incomplete frame waits for more. */
  push(chunk: Uint8Array, out: SseFrame[]): void;
}
