import { GatewayError } from '../errors/gateway-error.js';

/** The 400 for a query parameter the admin API refuses, naming it in `param` and in the message. */
export function badParameter(name: string, message: string): GatewayError {
  return new GatewayError(message, { status: 400, code: 'invalid_request_error', type: 'invalid_request_error', param: name });
}

/** A list's `limit` parameter: undefined when absent, a 400 unless it is a whole number from 1 to `max`. */
export function limitParameter(query: URLSearchParams, max: number): number | undefined {
  const limit = query.get('limit');
  if (limit === null) return undefined;
  const parsed = /^\d+$/.test(limit) ? Number(limit) : Number.NaN;
  if (!(parsed >= 1 && parsed <= max)) throw badParameter('limit', `Query parameter "limit" must be a whole number from 1 to ${max} (got "${limit}").`);
  return parsed;
}
