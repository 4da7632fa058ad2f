import type { UpstreamFailure } from '../providers/spec.js';

/** How long the target had the request without sending any content, against its first-token timeout. */
export interface Silence {
  silentMs: number;
  firstTokenTimeoutMs: number;
}

/**
 * A target that sat silent on the request for at least half its first-token timeout and then
 * failed — hung up, answered 5xx, ended its stream or sent an error event, before or after its
 * 200 — is a `timeout`, not a `connection` or `server_error`: such a target hangs instead of
 * answering, and a same-target retry with fresh timers would make the caller wait for it twice.
 * Other failures (a 429, a rejected key, the caller leaving) are answers, whatever came before.
 */
export function silentFailure(failure: UpstreamFailure, silence: Silence | undefined): UpstreamFailure {
  if (silence === undefined || silence.silentMs * 2 < silence.firstTokenTimeoutMs) return failure;
  if (failure.kind === 'connection') {
    return { kind: 'timeout', type: 'silent_hang_up', message: `the upstream closed the connection after ${silence.silentMs} ms without answering (${failure.message})` };
  }
  if (failure.kind === 'server_error') {
    return {
      kind: 'timeout',
      type: 'silent_then_failed',
      ...(failure.status === undefined ? {} : { status: failure.status }),
      message: `the upstream failed after ${silence.silentMs} ms without any content (${failure.message})`,
    };
  }
  return failure;
}
