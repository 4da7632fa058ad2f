import { GatewayError } from '../errors/gateway-error.js';

/** How long a caller should wait before trying again when the store cannot answer. */
const STORE_UNAVAILABLE_RETRY_AFTER_MS = 1_000;

/**
 * A store call whose failure is the caller's 503 `gateway_unavailable` (the store is locked,
 * down, or too slow to answer in time), never a 500 that reads as a bug in the gateway.
 */
export async function storeCall<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    throw new GatewayError('The gateway cannot reach its store right now; try again shortly.', {
      status: 503,
      code: 'gateway_unavailable',
      type: 'server_error',
      retryAfterMs: STORE_UNAVAILABLE_RETRY_AFTER_MS,
      cause: error,
    });
  }
}
