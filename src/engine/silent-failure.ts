import type { UpstreamFailure } from '../providers/spec.js';

/**
 * How long the target has been silent when the attempt failed, against the timeout that silence
 * runs under: before any content, since the request was sent against its first-token timeout;
 * after content, since its last event against its idle timeout.
 */
export interface Silence {
  silentMs: number;
  timeoutMs: number;
  afterContent: boolean;
}

/**
 * A target that sat silent for at least half the timeout in force and then failed — hung up,
 * answered 5xx, ended its stream or sent an error event, before or after its 200, before or after
 * its first content — is a `timeout`, not a `connection` or `server_error`: such a target hangs
 * instead of answering, and a same-target retry with fresh timers would make the caller wait for
 * it twice. Other failures (a 429, a rejected key, the caller leaving) are answers, whatever came before.
 */
export function silentFailure(failure: UpstreamFailure, silence: Silence | undefined): UpstreamFailure {
  if (silence === undefined || silence.silentMs * 2 < silence.timeoutMs) return failure;
  if (failure.kind === 'connection' && !silence.afterContent) {
    return { kind: 'timeout', type: 'silent_hang_up', message: `the upstream closed the connection after ${silence.silentMs} ms without answering (${failure.message})` };
  }
  if (failure.kind === 'connection' || failure.kind === 'server_error') {
    return {
      kind: 'timeout',
      type: 'silent_then_failed',
      ...(failure.status === undefined ? {} : { status: failure.status }),
      message: `the upstream failed after ${silence.silentMs} ms without ${silence.afterContent ? 'another event' : 'any content'} (${failure.message})`,
    };
  }
  return failure;
}
