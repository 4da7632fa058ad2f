import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import type { Config } from '../config/schema.js';
import type { AttemptRecord } from '../core/attempt-record.js';
import { CALLER_LEFT, Cancellation, DRAIN_TIME_UP } from '../core/cancellation.js';
import type { CallerDialect, StreamRenderer } from '../dialects/caller-dialect.js';
import { relayRenderer } from '../dialects/relay-renderer.js';
import type { FinalError } from '../engine/final-error.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { StoredResponse } from '../idempotency/idempotency-store.js';
import type { StreamEvent } from '../providers/spec.js';
import { answerKeeper, type AnswerPlan, type CallerReply, type StreamEnd, type StreamOptions } from './caller-reply.js';
import { failureBody } from './failure-body.js';

/** Past this much unsent on the socket, the next upstream read waits until it has gone out. */
const HIGH_WATER_BYTES = 256 * 1024;

/**
 * The reply to one `response.create` on a WebSocket (the Responses API's WebSocket mode): each
 * event of the stream is one text message, the same JSON object an SSE `data:` line carries. It
 * has no status line and no headers; an error before the response began is one `error` message
 * carrying the HTTP status the same request would have got, after which the socket serves the
 * next turn. An error after the response began goes as the stream's `error` and
 * `response.failed`, and the socket is then closed (`closesSocket`): a client that reads turns
 * in order would otherwise take the second terminal event for its next turn's.
 */
export class WebSocketReply implements CallerReply {
  readonly caller = new Cancellation();
  readonly #socket: WebSocket;
  readonly #requestId: string;
  readonly #dialect: Pick<CallerDialect, 'errorBody'>;
  readonly #logger: Logger;
  readonly #closed: Promise<void>;
  #renderer: StreamRenderer | undefined;
  #sentStatus: number | undefined;
  #cutAtShutdown = false;
  #closesSocket = false;

  /** `closed`: resolves when the socket closes (its owner's, made once for all its turns). */
  constructor(socket: { ws: WebSocket; closed: Promise<void> }, requestId: string, dialect: Pick<CallerDialect, 'errorBody'>, logger: Logger) {
    this.#socket = socket.ws;
    this.#closed = socket.closed;
    this.#requestId = requestId;
    this.#dialect = dialect;
    this.#logger = logger;
  }

  get sentStatus(): number | undefined {
    return this.#sentStatus;
  }

  /** Nothing goes out before the stream's first event, so a final error is never in-band. */
  get failedInBand(): boolean {
    return false;
  }

  get cutAtShutdown(): boolean {
    return this.#cutAtShutdown;
  }

  /** The turn ended with an error after its response began: the socket is to close once it ends. */
  get closesSocket(): boolean {
    return this.#closesSocket;
  }

  // A message has no headers: what they say over HTTP (served-by, attempts) is in the record.
  setHeader(): void {}

  withdrawHeaders(): void {}

  begin(plan: AnswerPlan): void {
    this.#renderer = plan.renderer;
  }

  sendJson(): void {
    throw new Error(`a WebSocket turn is always streamed, yet its answer came whole (${this.#requestId})`);
  }

  async stream(_headers: Record<string, string>, batches: AsyncIterable<StreamEvent[]>, options: StreamOptions): Promise<StreamEnd> {
    const dialect = this.#renderer;
    if (!dialect) throw new Error(`a stream answered a request that did not ask for one (${this.#requestId})`);
    const renderer = options.relayed ? relayRenderer(dialect) : dialect;
    this.#sentStatus = 200;
    let wrote = false;
    let failed = false;
    for await (const batch of batches) {
      if (!this.#open()) break;
      let text = '';
      for (const event of batch) {
        if (event.type === 'provider-error') {
          failed = true;
          text += renderer.write({ type: 'provider-error', error: { ...event.error, message: options.redact(event.error.message) } });
          continue;
        }
        text += renderer.write(event);
      }
      if (text === '') continue;
      if (!wrote) {
        wrote = true;
        options.onFirstWrite();
      }
      const written = new Promise<void>((resolve) => this.#sendFrames(text, () => resolve()));
      // A slow reader slows the upstream read, rather than the gateway holding its stream in memory.
      if (this.#socket.bufferedAmount > HIGH_WATER_BYTES) await Promise.race([written, this.#closed]);
    }
    if (!this.#open()) return 'cancelled';
    if (!wrote) options.onFirstWrite();
    if (failed) {
      this.#closesSocket = true;
      return 'interrupted';
    }
    if (this.#cutAtShutdown) {
      this.#closesSocket = true;
      this.#sendFrames(renderer.error({ kind: 'stream_interrupted', message: DRAIN_TIME_UP.message, requestId: this.#requestId }));
      return 'interrupted';
    }
    await answerKeeper(renderer, options)?.();
    this.#sendFrames(renderer.end());
    return 'complete';
  }

  fail(final: FinalError, attempts: readonly AttemptRecord[], config: Config): void {
    if (this.caller.aborted) return;
    const failure = failureBody(final, attempts, this.#requestId, config, this.#dialect);
    this.#sendError(final.status, failure.body);
  }

  refuse(error: unknown): void {
    if (error === CALLER_LEFT || !this.#open()) return;
    if (error instanceof GatewayError) {
      this.#sendError(error.status, this.#dialect.errorBody({ status: error.status, code: error.code, type: error.type, message: error.message, param: error.param ?? null, requestId: this.#requestId }));
      return;
    }
    this.#logger.error({ err: error, requestId: this.#requestId }, 'unhandled error while serving a WebSocket response');
    this.#sendError(500, this.#dialect.errorBody({ status: 500, code: 'internal_error', type: 'server_error', message: 'Internal gateway error.', requestId: this.#requestId }));
  }

  replay(_stored: StoredResponse): void {
    throw new Error(`a WebSocket turn holds no Idempotency-Key, yet it was replayed (${this.#requestId})`);
  }

  /** Stops the upstream; a stream under way ends with the cut's error event (the socket's owner then closes it). */
  cut(): undefined {
    this.#cutAtShutdown = true;
    this.caller.abort(DRAIN_TIME_UP);
    return undefined;
  }

  /** The error message of a turn refused or failed before its response began: the error body, with the status it stands for. */
  #sendError(status: number, body: unknown): void {
    this.#sentStatus = status;
    if (!this.#open()) return;
    this.#socket.send(JSON.stringify({ type: 'error', status, ...(body as Record<string, unknown>) }));
  }

  /** One message per event: each SSE frame the dialect rendered, as its `data:` JSON; `written` runs once the last is written out. */
  #sendFrames(sse: string, written?: () => void): void {
    const messages = this.#open() ? sseData(sse) : [];
    if (messages.length === 0) return written?.();
    const last = messages.length - 1;
    messages.forEach((data, index) => this.#socket.send(data, index === last ? written : undefined));
  }

  #open(): boolean {
    return this.#socket.readyState === this.#socket.OPEN;
  }
}

/** The `data:` payload of each frame of a dialect's rendered SSE text (every frame of the Responses dialect has one). */
function sseData(sse: string): string[] {
  const payloads: string[] = [];
  for (const frame of sse.split('\n\n')) {
    const at = frame.indexOf('data: ');
    if (at >= 0) payloads.push(frame.slice(at + 6));
  }
  return payloads;
}
