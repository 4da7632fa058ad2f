import { ServerResponse, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';

/**
 * A response that carries its request id and adds `x-request-id` to whatever head is written
 * (SPEC §4: every response). Adding it with the rest of the head, rather than by `setHeader`
 * beforehand, keeps Node on its fast path for headers passed to `writeHead`: a header set in
 * advance makes Node re-set every later one individually, a measurable cost per request.
 */
export class GatewayResponse extends ServerResponse<IncomingMessage> {
  requestId = '';

  override writeHead(statusCode: number, statusMessage?: string, headers?: OutgoingHttpHeaders | OutgoingHttpHeader[]): this;
  override writeHead(statusCode: number, headers?: OutgoingHttpHeaders | OutgoingHttpHeader[]): this;
  override writeHead(
    statusCode: number,
    messageOrHeaders?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): this {
    if (typeof messageOrHeaders === 'string') {
      this.setHeader('x-request-id', this.requestId);
      return super.writeHead(statusCode, messageOrHeaders, headers);
    }
    if (messageOrHeaders === undefined || Array.isArray(messageOrHeaders)) {
      this.setHeader('x-request-id', this.requestId);
      return super.writeHead(statusCode, messageOrHeaders);
    }
    return super.writeHead(statusCode, { ...messageOrHeaders, 'x-request-id': this.requestId });
  }
}
