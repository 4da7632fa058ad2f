import type { SseRenderer } from '../dialects/caller-dialect.js';
import type { StreamEvent } from '../providers/spec.js';

/**
 * Wraps the caller's SSE renderer and keeps a copy of everything it renders, so a stream sent
 * under an idempotency key can be stored and replayed verbatim. Past `maxChars` it stops copying
 * (the stream itself goes on): such a response is too large to keep, and `text()` says so.
 */
export class RecordingSseRenderer implements SseRenderer {
  readonly #inner: SseRenderer;
  readonly #maxChars: number;
  #chunks: string[] = [];
  #chars = 0;
  #overflowed = false;

  constructor(inner: SseRenderer, maxChars: number) {
    this.#inner = inner;
    this.#maxChars = maxChars;
  }

  write(event: StreamEvent): string {
    return this.#record(this.#inner.write(event));
  }

  end(): string {
    return this.#record(this.#inner.end());
  }

  /** The SSE text rendered so far; undefined once it outgrew `maxChars`. */
  text(): string | undefined {
    return this.#overflowed ? undefined : this.#chunks.join('');
  }

  #record(text: string): string {
    if (this.#overflowed || text === '') return text;
    this.#chars += text.length;
    if (this.#chars > this.#maxChars) {
      this.#overflowed = true;
      this.#chunks = [];
    } else {
      this.#chunks.push(text);
    }
    return text;
  }
}
