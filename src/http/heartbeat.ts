import type { ServerResponse } from 'node:http';
import { timerDelayMs } from '../core/timer-delay.js';

/** How often a keep-alive comment goes out once the heartbeat has started. */
const KEEP_ALIVE_INTERVAL_MS = 5_000;

/**
 * While a stream waits for its first content longer than `afterMs`, sends the 200 and SSE
 * headers, then a `: keep-alive` comment every few seconds, so load balancers keep the
 * connection. Failover stays invisible (no content was sent); a final failure can then only be
 * reported in-band.
 */
export class Heartbeat {
  readonly #response: ServerResponse;
  #timer: NodeJS.Timeout | undefined;

  constructor(response: ServerResponse, afterMs: number) {
    this.#response = response;
    this.#timer = setTimeout(() => this.#beat(), timerDelayMs(afterMs));
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #beat(): void {
    if (this.#response.destroyed) return;
    if (!this.#response.headersSent) this.#response.writeHead(200, { ...SSE_HEADERS });
    this.#response.write(': keep-alive\n\n');
    this.#timer = setTimeout(() => this.#beat(), KEEP_ALIVE_INTERVAL_MS);
  }
}

export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
});
