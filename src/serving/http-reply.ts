import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import type { AttemptRecord } from '../core/attempt-record.js';
import { DRAIN_TIME_UP, type Cancellation } from '../core/cancellation.js';
import type { CallerDialect, StreamRenderer } from '../dialects/caller-dialect.js';
import { relayRenderer } from '../dialects/relay-renderer.js';
import type { FinalError } from '../engine/final-error.js';
import { answerThrown } from '../http/answer-thrown.js';
import { callerCancellation } from '../http/caller-cancellation.js';
import type { GatewayResponse } from '../http/gateway-response.js';
import { Heartbeat } from '../http/heartbeat.js';
import { RecordingSseRenderer } from '../http/recording-sse-renderer.js';
import { retryHeaders, sendJson } from '../http/send.js';
import { sendReplay } from '../http/send-replay.js';
import { writeSse } from '../http/write-sse.js';
import { isReplayable, type IdempotencyStore, type StoredResponse } from '../idempotency/idempotency-store.js';
import type { StreamEvent } from '../providers/spec.js';
import { answerKeeper, type AnswerPlan, type CallerReply, type StreamEnd, type StreamOptions } from './caller-reply.js';
import { failureBody } from './failure-body.js';
import type { IdempotencyClaim } from './request-context.js';

/** A replayable stream is kept up to this size; a longer one is answered but not stored. */
const MAX_STORED_STREAM_CHARS = 4 * 1024 * 1024;

/**
 * The caller's reply over HTTP: one JSON body, or SSE with a heartbeat while the first content
 * is awaited. It owns its `GatewayResponse` from the request's arrival (the server's drain asks
 * it, not the response, to cut), so nothing else writes to the response or reads it back.
 */
export class HttpReply implements CallerReply {
  readonly caller: Cancellation;
  readonly #response: GatewayResponse;
  readonly #requestId: string;
  readonly #dialect: Pick<CallerDialect, 'errorBody'>;
  readonly #deps: { logger: Logger; idempotency: IdempotencyStore };
  #renderer: StreamRenderer | undefined;
  #heartbeat: Heartbeat | undefined;
  #idempotency: IdempotencyClaim | undefined;
  #failedInBand = false;
  #cutAtShutdown = false;

  constructor(
    response: GatewayResponse,
    requestId: string,
    dialect: Pick<CallerDialect, 'errorBody'>,
    deps: { logger: Logger; idempotency: IdempotencyStore },
  ) {
    this.#response = response;
    this.#requestId = requestId;
    this.#dialect = dialect;
    this.#deps = deps;
    this.caller = callerCancellation(response);
    response.reply = this;
  }

  get sentStatus(): number | undefined {
    return this.#response.headersSent ? this.#response.statusCode : undefined;
  }

  get failedInBand(): boolean {
    return this.#failedInBand;
  }

  get cutAtShutdown(): boolean {
    return this.#cutAtShutdown;
  }

  setHeader(name: string, value: string): void {
    this.#response.setHeader(name, value);
  }

  withdrawHeaders(names: readonly string[]): void {
    // Headers a heartbeat already sent stay as sent: the record says what really happened.
    if (!this.#response.headersSent) for (const name of names) this.#response.removeHeader(name);
  }

  begin(plan: AnswerPlan): void {
    this.#renderer = plan.renderer;
    this.#idempotency = plan.idempotency;
    // A stream waiting long for its first content keeps the caller's connection alive meanwhile.
    if (plan.renderer) this.#heartbeat = new Heartbeat(this.#response, plan.heartbeatMs);
  }

  sendJson(status: number, body: unknown, headers: Record<string, string>): void {
    this.#heartbeat?.stop();
    const text = sendJson(this.#response, status, body, headers);
    this.#keepForReplay({ status, headers, body: text });
  }

  async stream(headers: Record<string, string>, batches: AsyncIterable<StreamEvent[]>, options: StreamOptions): Promise<StreamEnd> {
    this.#heartbeat?.stop();
    const dialect = this.#renderer;
    if (!dialect) throw new Error(`a stream answered a request that did not ask for one (${this.#requestId})`);
    const renderer = options.relayed ? relayRenderer(dialect) : dialect;
    const recorder = this.#idempotency ? new RecordingSseRenderer(renderer, MAX_STORED_STREAM_CHARS) : undefined;
    const ended = await writeSse(this.#response, headers, batches, recorder ?? renderer, { ...options, beforeEnd: answerKeeper(renderer, options) }, () =>
      this.#cutAtShutdown ? DRAIN_TIME_UP.message : undefined,
    );
    const sse = ended === 'complete' ? recorder?.text() : undefined;
    if (sse !== undefined) this.#keepForReplay({ status: 200, headers, sse });
    return ended;
  }

  fail(final: FinalError, attempts: readonly AttemptRecord[], config: Config): void {
    this.#heartbeat?.stop();
    const renderer = this.#renderer;
    const begun = this.#response.headersSent && renderer !== undefined;
    if (this.caller.aborted) {
      // Cut by a shutdown after a heartbeat: the caller, still there, gets its dialect's error event.
      if (this.#cutAtShutdown && begun) this.#response.end(renderer.error({ kind: 'stream_interrupted', message: DRAIN_TIME_UP.message, requestId: this.#requestId }));
      return;
    }
    const failure = failureBody(final, attempts, this.#requestId, config, this.#dialect);
    if (begun) {
      // After a heartbeat the caller already has a 200; the failure goes in-band, saying as much.
      this.#failedInBand = true;
      this.#response.end(renderer.error({ kind: final.code, message: failure.message, requestId: this.#requestId, attempts: failure.attempts }));
      return;
    }
    const headers = retryHeaders(final.retryAfterMs);
    const text = sendJson(this.#response, final.status, failure.body, headers);
    this.#keepForReplay({ status: final.status, headers, body: text });
  }

  refuse(error: unknown): void {
    this.#heartbeat?.stop();
    answerThrown(this.#response, error, this.#requestId, this.#dialect, this.#deps.logger);
  }

  replay(stored: StoredResponse): void {
    sendReplay(this.#response, stored);
  }

  cut(): Promise<void> | undefined {
    this.#cutAtShutdown = true;
    const response = this.#response;
    if (!response.headersSent || response.writableEnded || !this.#renderer) {
      response.destroy();
      return undefined;
    }
    const closed = new Promise<void>((resolve) => response.once('close', () => resolve()));
    // Stops the upstream; the stream (or the failure after a heartbeat) ends with the cut's error event.
    this.caller.abort(DRAIN_TIME_UP);
    return closed;
  }

  /** Keeps a finished answer for replay under the request's idempotency key, when it is worth replaying. */
  #keepForReplay(stored: StoredResponse): void {
    const idempotency = this.#idempotency;
    if (!idempotency || !isReplayable(stored.status)) return;
    this.#deps.idempotency.complete(idempotency.entry, stored);
    idempotency.completed = true;
  }
}
