import type { Dispatcher } from 'undici';

/** Past this many unread bytes the upstream socket is paused: a slow caller slows the upstream. */
const HIGH_WATER_BYTES = 256 * 1024;
const LOW_WATER_BYTES = 64 * 1024;
/**
 * The most a whole (non-streamed) answer or error body may hold. Far beyond any real one; an
 * upstream that sends more is broken or hostile, and is cut off rather than buffered.
 */
const MAX_WHOLE_BODY_BYTES = 64 * 1024 * 1024;

/** A whole upstream body larger than `MAX_WHOLE_BODY_BYTES`: the attempt ends as a broken connection. */
export class UpstreamBodyTooLargeError extends Error {
  readonly code = 'UPSTREAM_BODY_TOO_LARGE';

  constructor(limitBytes: number) {
    super(`the upstream body exceeded ${limitBytes} bytes`);
    this.name = 'UpstreamBodyTooLargeError';
  }
}

/**
 * An upstream response body as a pull-based async iterable of chunks, fed by undici's dispatch
 * handler. Lighter than a Node Readable (this sits on every request's hot path), with the same
 * guarantees that matter here: backpressure, errors surface to the reader, and a reader that
 * stops early releases the connection.
 */
export class UpstreamBody implements AsyncIterable<Buffer> {
  readonly #chunks: Buffer[] = [];
  #queuedBytes = 0;
  #ended = false;
  #error: unknown;
  #wake: (() => void) | undefined;
  #controller: Dispatcher.DispatchController | undefined;

  attach(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
  }

  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#queuedBytes += chunk.length;
    if (this.#queuedBytes > HIGH_WATER_BYTES && this.#controller && !this.#controller.paused) this.#controller.pause();
    this.#notify();
  }

  end(): void {
    this.#ended = true;
    this.#notify();
  }

  fail(error: unknown): void {
    this.#error ??= error;
    this.#notify();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    try {
      for (;;) {
        const chunk = this.#chunks.shift();
        if (chunk !== undefined) {
          this.#queuedBytes -= chunk.length;
          if (this.#queuedBytes < LOW_WATER_BYTES && this.#controller?.paused) this.#controller.resume();
          yield chunk;
          continue;
        }
        if (this.#error !== undefined) throw this.#error;
        if (this.#ended) return;
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
      }
    } finally {
      // A reader that stopped early lets go of the upstream connection.
      if (!this.#ended && this.#error === undefined && this.#controller && !this.#controller.aborted) {
        this.#controller.abort(new Error('upstream body no longer read'));
      }
    }
  }

  async text(limitBytes: number = MAX_WHOLE_BODY_BYTES): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of this) {
      size += chunk.length;
      if (size > limitBytes) throw new UpstreamBodyTooLargeError(limitBytes);
      chunks.push(chunk);
    }
    return chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
