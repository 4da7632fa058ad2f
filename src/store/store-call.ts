import { GatewayError } from '../errors/gateway-error.js';
import { StoreUnavailableError } from './store-unavailable-error.js';

/** How long a caller should wait before trying again when the store cannot answer. */
const STORE_UNAVAILABLE_RETRY_AFTER_MS = 1_000;
/**
 * The most a caller waits for the store (docs/operations.md), for the whole of what it asked: each
 * statement is bounded by the store itself, but a call made of several — write what is pending,
 * then read — would otherwise wait the sum of their bounds.
 */
const STORE_ANSWER_BOUND_MS = 1_000;

/**
 * A store call whose failure is the caller's 503 `gateway_unavailable` (the store is locked,
 * down, or too slow to answer in time), never a 500 that reads as a bug in the gateway. The
 * caller stops waiting after `STORE_ANSWER_BOUND_MS`; what the call started goes on in the
 * background (each statement ends within the store's own bound).
 */
export async function storeCall<T>(call: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailableError(`the store did not answer within ${STORE_ANSWER_BOUND_MS} ms`)), STORE_ANSWER_BOUND_MS);
  });
  try {
    return await Promise.race([call, timedOut]);
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    throw new GatewayError('The gateway cannot reach its store right now; try again shortly.', {
      status: 503,
      code: 'gateway_unavailable',
      type: 'server_error',
      retryAfterMs: STORE_UNAVAILABLE_RETRY_AFTER_MS,
      cause: error,
    });
  } finally {
    clearTimeout(timer);
  }
}
