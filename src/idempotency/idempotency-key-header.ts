import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../errors/gateway-error.js';

/** Keys are client-made identifiers (UUIDs, typically); a longer one is not a key but a payload to store. */
const MAX_IDEMPOTENCY_KEY_CHARS = 255;

/** The request's `Idempotency-Key`, or undefined without one; an empty or oversized key is a 400. */
export function idempotencyKeyOf(headers: IncomingHttpHeaders): string | undefined {
  const value = headers['idempotency-key'];
  if (value === undefined) return undefined;
  const key = Array.isArray(value) ? value.join(', ') : value;
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_CHARS) {
    throw new GatewayError(`Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_CHARS} characters.`, {
      status: 400,
      code: 'invalid_request_error',
      param: 'Idempotency-Key',
    });
  }
  return key;
}

/**
 * The `Idempotency-Key` every attempt of the request sends upstream. Not the caller's own: all
 * callers reach a provider through the gateway's one account, so two callers who both chose
 * `retry-1` would look like one to the provider. Derived from scope and key, it is distinct per
 * caller and the same on every attempt and every resend.
 */
export function upstreamIdempotencyKey(scope: string, key: string): string {
  return `sy-${createHash('sha256').update(JSON.stringify([scope, key])).digest('hex')}`;
}
