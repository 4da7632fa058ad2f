import type { UpstreamFailure } from '../providers/spec.js';
import { ANSWERED_ELSEWHERE } from '../core/cancellation.js';
import { AttemptTimeout } from './attempt-timer.js';

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/**
 * The HTTP client refused the request the gateway built (a header value it cannot send, a bad
 * URL) before anything went on the wire: the gateway's failure, not the provider's.
 */
const REFUSED_REQUEST_CODES = new Set(['UND_ERR_INVALID_ARG', 'ERR_INVALID_URL', 'ERR_INVALID_CHAR', 'ERR_INVALID_HTTP_TOKEN', 'ERR_INVALID_ARG_TYPE', 'ERR_INVALID_ARG_VALUE']);

/** Whether (and why) one link of the abort tree fired: a `Cancellation` (or an AbortSignal). */
interface Aborted {
  readonly aborted: boolean;
  readonly reason: unknown;
}

/**
 * Maps an error thrown while sending or reading an attempt to its failure kind. The gateway's own
 * aborts are recognised by the cancellation that fired, not by the error text. (A failure after a
 * long silence becomes a `timeout` where the attempt fails: see `silentFailure`.)
 */
export function classifyTransportError(error: unknown, aborts: { caller: Aborted; attempt: Aborted }): UpstreamFailure {
  if (aborts.caller.aborted) return { kind: 'cancelled', message: aborts.caller.reason === ANSWERED_ELSEWHERE ? ANSWERED_ELSEWHERE.message : 'the caller disconnected' };
  if (aborts.attempt.aborted && aborts.attempt.reason instanceof AttemptTimeout) {
    return { kind: 'timeout', type: aborts.attempt.reason.phase, message: aborts.attempt.reason.message };
  }
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  if (code !== undefined && TIMEOUT_CODES.has(code)) return { kind: 'timeout', type: code, message };
  if (code !== undefined && REFUSED_REQUEST_CODES.has(code)) return { kind: 'internal_error', type: code, message: `the gateway built a request it cannot send: ${message}` };
  if (code === undefined && isProgrammingError(error)) {
    return { kind: 'internal_error', type: 'gateway_failure', message: `the gateway failed while handling this attempt (${(error as Error).name}: ${message})` };
  }
  return { kind: 'connection', ...(code === undefined ? {} : { type: code }), message };
}

/**
 * The network, the HTTP client and the gateway's own limits throw errors with a `code`; a bare
 * TypeError, RangeError (a stack overflow) or ReferenceError is the gateway's own code failing.
 */
function isProgrammingError(error: unknown): boolean {
  return error instanceof TypeError || error instanceof RangeError || error instanceof ReferenceError;
}

/** The first string `code` on the error or its causes (undici wraps socket errors). */
export function errorCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return undefined;
}
