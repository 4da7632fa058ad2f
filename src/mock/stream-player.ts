import type { ServerResponse } from 'node:http';
import type { Faults } from './directives.js';
import type { Frame, StreamFrames } from './wire.js';

/** How a stream ends: normally, or interrupted after `after` content pieces. */
export type StreamEnding = { kind: 'complete' } | { kind: 'cut' | 'stall' | 'inband'; after: number };

/**
 * The earliest interruption wins; at the same position cut beats stall beats in-band error (the
 * order the player checks them). Positions past the last piece interrupt before the finish.
 */
export function streamEnding(faults: Faults, pieceCount: number): StreamEnding {
  let ending: StreamEnding = { kind: 'complete' };
  let earliest = Number.POSITIVE_INFINITY;
  const consider = (kind: 'cut' | 'stall' | 'inband', after: number | undefined): void => {
    if (after === undefined) return;
    const position = Math.min(after, pieceCount);
    if (position < earliest) {
      earliest = position;
      ending = { kind, after: position };
    }
  };
  consider('cut', faults.cutAfter);
  consider('stall', faults.stallAfter);
  consider('inband', faults.inband?.after);
  return ending;
}

export interface StreamScript {
  frames: StreamFrames;
  ending: StreamEnding;
  /** The in-band error event, when `ending` is `inband`. */
  inbandFrame: Frame;
  malformedAfter?: number;
  malformedFrame: Frame;
  firstTokenMs: number;
  chunkMs: number;
  /** False for `no_done`: the tail goes out without its last word (`[DONE]`, `message_stop`, …). */
  terminate: boolean;
  /** Called just before the stream ends, is cut or stalls (not when the client leaves first). */
  onEnding: () => void;
}

/**
 * Runs `action` after `delayMs`, or now when there is no delay, so an undelayed answer never
 * touches a timer. The timer dies with the response, so a vanished client leaves nothing behind.
 */
export function afterDelay(response: ServerResponse, delayMs: number, action: () => void): void {
  if (delayMs <= 0) {
    action();
    return;
  }
  const cancel = (): void => clearTimeout(timer);
  const timer = setTimeout(() => {
    response.off('close', cancel);
    if (!response.destroyed) action();
  }, delayMs);
  response.once('close', cancel);
}

/** One write for several frames; the frames of one stream are all text or all bytes. */
function joinFrames(frames: Frame[]): Frame {
  if (frames.length === 1) return frames[0]!;
  return typeof frames[0] === 'string' ? frames.join('') : Buffer.concat(frames as Uint8Array[]);
}

/**
 * Writes the stream whose status and headers are already set on `response`. Frames are
 * collected and written only when the script must wait or stop, so an undelayed stream is a
 * single `end()` call. The head is written even when empty (Gemini has none): that sends the
 * headers before any wait.
 */
export function playStream(response: ServerResponse, script: StreamScript): void {
  const { frames, ending } = script;
  const pieceCount = frames.pieceCount;
  const stopAt = ending.kind === 'complete' ? pieceCount : ending.after;
  const malformedAt = script.malformedAfter === undefined ? undefined : Math.min(script.malformedAfter, pieceCount);
  let pending: Frame[] = [frames.head];
  let sent = 0;
  let waitedAt = -1;

  const takePending = (): Frame => {
    const joined = joinFrames(pending);
    pending = [];
    return joined;
  };

  // Each position waits first (first_token_ms before the first piece, chunk_ms before the
  // others), so an interruption or the finish comes as late as the next piece would have.
  const step = (): void => {
    for (;;) {
      const delayMs = sent === 0 ? script.firstTokenMs : script.chunkMs;
      if (delayMs > 0 && waitedAt !== sent) {
        waitedAt = sent;
        if (pending.length !== 0) response.write(takePending());
        afterDelay(response, delayMs, step);
        return;
      }
      if (sent === malformedAt) pending.push(script.malformedFrame);
      if (sent === stopAt) {
        finish();
        return;
      }
      pending.push(frames.piece(sent));
      sent += 1;
    }
  };

  const finish = (): void => {
    script.onEnding();
    switch (ending.kind) {
      case 'complete':
        pending.push(frames.tail(script.terminate));
        response.end(takePending());
        return;
      case 'inband':
        pending.push(script.inbandFrame);
        response.end(takePending());
        return;
      case 'stall':
        if (pending.length !== 0) response.write(takePending());
        return;
      case 'cut':
        // Destroy only once the pieces are on the wire, so the client sees exactly `after` of them.
        if (pending.length === 0) response.destroy();
        else response.write(takePending(), () => response.destroy());
        return;
    }
  };

  step();
}
