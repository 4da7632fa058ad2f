import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { CALLER_LEFT } from '../core/cancellation.js';
import type { CallerDialect } from '../dialects/caller-dialect.js';
import { GatewayError } from '../errors/gateway-error.js';
import { sendGatewayError } from './send.js';

/**
 * What a handler threw, answered: a `GatewayError` as itself, anything else as a logged 500, in
 * the caller's dialect (the OpenAI envelope by default). An inference request's reply answers its
 * own this way; the HTTP edge answers the rest.
 */
export function answerThrown(
  response: ServerResponse,
  error: unknown,
  requestId: string,
  dialect: Pick<CallerDialect, 'errorBody'> | undefined,
  logger: Logger,
): void {
  // Nobody is left to answer.
  if (error === CALLER_LEFT) return;
  if (error instanceof GatewayError) {
    // HTTP asks a server that stops waiting for a request to close the connection.
    if (error.status === 408) response.setHeader('connection', 'close');
    sendGatewayError(response, error, requestId, dialect);
    return;
  }
  logger.error({ err: error, requestId }, 'unhandled error while serving a request');
  sendGatewayError(response, new GatewayError('Internal gateway error.', { status: 500, code: 'internal_error', type: 'server_error' }), requestId, dialect);
}
