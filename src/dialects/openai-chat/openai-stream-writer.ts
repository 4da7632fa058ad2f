import type { StreamEvent } from '../../providers/spec.js';
import type { Usage } from '../../core/usage.js';
import { finalErrorFields, type StreamError } from '../shared/final-error-fields.js';
import { toOpenAiUsage } from './render-openai-chat.js';

/**
 * Renders canonical stream events as OpenAI `chat.completion.chunk` SSE lines. Stateful per
 * response: the chunk id, model and `created` come from the upstream's start event; usage is
 * held until the end (after the finish chunk) and sent only if the caller asked for it.
 *
 * Everything but the delta is the same for every chunk of a response, so that part is
 * serialised once (per chunk only the delta is stringified: this runs for every streamed token).
 */
export class OpenAiStreamWriter {
  #id: string;
  #model: string;
  #created = Math.floor(Date.now() / 1000);
  #systemFingerprint: string | undefined;
  #sentRole = false;
  #usage: Usage | undefined;
  #chunkPrefix: string | undefined;
  readonly #includeUsage: boolean;

  constructor(options: { fallbackId: string; model: string; includeUsage: boolean }) {
    this.#id = options.fallbackId;
    this.#model = options.model;
    this.#includeUsage = options.includeUsage;
  }

  /** The SSE text for one event ('' when the event produces no chunk of its own). */
  write(event: StreamEvent): string {
    switch (event.type) {
      case 'response-start':
        if (event.id) this.#id = event.id;
        if (event.responseModel) this.#model = event.responseModel;
        if (event.created !== undefined) this.#created = event.created;
        this.#systemFingerprint = event.systemFingerprint;
        return '';
      case 'text-delta':
        if (this.#sentRole) return `${this.#prefix()}{"content":${JSON.stringify(event.text)}}${CHUNK_TAIL}`;
        return this.#chunk({ content: event.text });
      case 'reasoning-delta':
        return this.#chunk({ reasoning_content: event.text });
      case 'refusal-delta':
        return this.#chunk({ refusal: event.text });
      case 'tool-call-start':
        return this.#chunk({
          tool_calls: [{ index: event.index, id: event.id, type: 'function', function: { name: event.name, arguments: '' } }],
        });
      case 'tool-call-delta':
        return this.#chunk({ tool_calls: [{ index: event.index, function: { arguments: event.argumentsDelta } }] });
      case 'tool-call-end':
      case 'malformed-event':
      // A relayed stream's frames go out through `relayRenderer`, never through a dialect's writer.
      case 'relay-frame':
      // Chat Completions has no reasoning blocks or signatures; the reasoning text went as deltas.
      case 'reasoning-start':
      case 'reasoning-signature':
      case 'reasoning-redacted':
      case 'output-item':
        return '';
      case 'usage':
        this.#usage = event.usage;
        return '';
      case 'finish':
        return this.#chunk({}, event.reason);
      case 'provider-error':
        return this.error(event.error);
    }
  }

  /** The closing lines of a complete stream: the usage chunk (if asked for) and `[DONE]`. */
  end(): string {
    let text = '';
    if (this.#includeUsage && this.#usage) {
      text += sse({ ...this.#base(), choices: [], usage: toOpenAiUsage(this.#usage) });
    }
    return text + 'data: [DONE]\n\n';
  }

  /** An in-band error the official SDKs raise; the stream then closes without `[DONE]`. */
  error(error: StreamError): string {
    return sse({ error: { message: error.message, type: error.kind, param: null, code: error.kind, ...finalErrorFields(error) } });
  }

  #chunk(delta: Record<string, unknown>, finishReason: string | null = null): string {
    if (!this.#sentRole) {
      this.#sentRole = true;
      delta = { role: 'assistant', ...delta };
    }
    const tail = finishReason === null ? CHUNK_TAIL : `,"logprobs":null,"finish_reason":${JSON.stringify(finishReason)}}]}\n\n`;
    return `${this.#prefix()}${JSON.stringify(delta)}${tail}`;
  }

  /** `data: {"id":…,"choices":[{"index":0,"delta":` — fixed once the first chunk goes out. */
  #prefix(): string {
    if (this.#chunkPrefix === undefined) {
      const head = JSON.stringify(this.#base());
      this.#chunkPrefix = `data: ${head.slice(0, -1)},"choices":[{"index":0,"delta":`;
    }
    return this.#chunkPrefix;
  }

  #base(): Record<string, unknown> {
    const base: Record<string, unknown> = { id: this.#id, object: 'chat.completion.chunk', created: this.#created, model: this.#model };
    if (this.#systemFingerprint !== undefined) base.system_fingerprint = this.#systemFingerprint;
    return base;
  }
}

const CHUNK_TAIL = ',"logprobs":null,"finish_reason":null}]}\n\n';

function sse(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}
