import type { Dispatcher } from 'undici';

/** Past this many unread bytes the upstream socket is paused: a slow caller slows the upstream. */
const HIGH_WATER_BYTES = 256 * 1024;
const LOW_WATER_BYTES = 64 * 1024;

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

  async text(): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of this) chunks.push(chunk);
    return chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
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
