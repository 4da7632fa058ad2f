import type { ServerResponse } from 'node:http';
import type { GatewayError } from '../errors/gateway-error.js';

/** Sends a JSON response; returns the text sent (idempotency keeps it for replay). */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): string {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
  return text;
}

/** Headers that tell a caller whether (and when) resending could help. */
export function retryHeaders(retryAfterMs: number | undefined): Record<string, string> {
  if (retryAfterMs === undefined) return { 'x-should-retry': 'false' };
  return {
    'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))),
    'retry-after-ms': String(Math.max(0, Math.round(retryAfterMs))),
  };
}

/** An error the gateway raised itself, in the OpenAI error envelope. */
export function sendGatewayError(response: ServerResponse, error: GatewayError, requestId: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  sendJson(
    response,
    error.status,
    { error: { message: error.message, type: error.type, param: error.param ?? null, code: error.code, request_id: requestId } },
    retryHeaders(error.retryAfterMs),
  );
}
