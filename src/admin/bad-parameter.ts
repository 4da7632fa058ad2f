import { GatewayError } from '../errors/gateway-error.js';

/** The 400 for a query parameter the admin API refuses, naming it in `param` and in the message. */
export function badParameter(name: string, message: string): GatewayError {
  return new GatewayError(message, { status: 400, code: 'invalid_request_error', type: 'invalid_request_error', param: name });
}
