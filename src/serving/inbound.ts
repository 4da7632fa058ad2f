import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { readJsonBody, type BodyLimits } from '../http/read-json-body.js';

/** A request body as read: its text (idempotency hashes it) and what it parses to. */
export interface JsonBody {
  text: string;
  json: unknown;
}

/**
 * What the request pipeline reads of a caller's request, whatever carried it: an HTTP request,
 * or one `response.create` message on a WebSocket (whose headers are its handshake's). It is also
 * what holds the request's `server.max_in_flight` slot.
 */
export interface Inbound {
  readonly headers: IncomingHttpHeaders;
  /** `websocket` is kept on the record; HTTP is the default and is not. */
  readonly transport: 'http' | 'websocket';
  readBody(limits: BodyLimits): Promise<JsonBody>;
  /** A refused caller's body, read for its record only when it is no larger than `maxBytes`. */
  readSmallBody(limits: BodyLimits): Promise<JsonBody | undefined>;
}

/** An HTTP request as the pipeline reads it. */
export function httpInbound(request: IncomingMessage): Inbound {
  return {
    headers: request.headers,
    transport: 'http',
    readBody: (limits) => readJsonBody(request, limits),
    async readSmallBody(limits) {
      if (!(Number(request.headers['content-length']) <= limits.maxBytes)) return undefined;
      return readJsonBody(request, limits).catch(() => undefined);
    },
  };
}
