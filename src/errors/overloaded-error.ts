import { GatewayError } from './gateway-error.js';

/** What a caller refused for load is told to wait: long enough for in-flight work to drain a little. */
const OVERLOADED_RETRY_AFTER_MS = 1_000;

/** A 503 refusal for load (the gateway's in-flight limit, or every target at its own), never queued. */
export function overloadedError(message: string): GatewayError {
  return new GatewayError(message, { status: 503, code: 'overloaded', type: 'server_error', retryAfterMs: OVERLOADED_RETRY_AFTER_MS });
}
