import { ServerResponse, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';

/** What owns a request's answer, as the server's drain sees it. */
export interface ReplyInFlight {
  /**
   * The drain time ran out with this answer still under way: it ends now. A stream under way
   * ends with its dialect's error event and resolves once its connection is closed; anything
   * else has its connection cut at once (undefined).
   */
  cut(): Promise<void> | undefined;
}

/**
 * A response that carries its request id and adds `x-request-id` to whatever head is written
 * (every response carries it). Adding it with the rest of the head, rather than by `setHeader`
 * beforehand, keeps Node on its fast path for headers passed to `writeHead`: a header set in
 * advance makes Node re-set every later one individually, a measurable cost per request. For the
 * same reason the id is added to the headers object passed in, not to a copy: `writeHead` takes
 * that object over, so callers pass one of their own, never a shared constant.
 */
export class GatewayResponse extends ServerResponse<IncomingMessage> {
  requestId = '';
  /** The headers that carry the id: the Anthropic dialect adds `request-id`, which its SDKs read. */
  requestIdHeaders: readonly string[] = ['x-request-id'];
  /**
   * What owns this response's answer (an inference request's reply), which a shutdown asks to
   * end it when its drain time runs out; unset for the small handlers, whose connection is cut.
   */
  reply: ReplyInFlight | undefined;

  override writeHead(statusCode: number, statusMessage?: string, headers?: OutgoingHttpHeaders | OutgoingHttpHeader[]): this;
  override writeHead(statusCode: number, headers?: OutgoingHttpHeaders | OutgoingHttpHeader[]): this;
  override writeHead(
    statusCode: number,
    messageOrHeaders?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): this {
    if (typeof messageOrHeaders === 'string') {
      for (const name of this.requestIdHeaders) this.setHeader(name, this.requestId);
      return super.writeHead(statusCode, messageOrHeaders, headers);
    }
    if (messageOrHeaders === undefined || Array.isArray(messageOrHeaders)) {
      for (const name of this.requestIdHeaders) this.setHeader(name, this.requestId);
      return super.writeHead(statusCode, messageOrHeaders);
    }
    for (const name of this.requestIdHeaders) messageOrHeaders[name] = this.requestId;
    return super.writeHead(statusCode, messageOrHeaders);
  }
}
