import type { Usage } from '../../core/usage.js';
import type { FinishReason, StreamEvent } from '../../providers/spec.js';
import type { StreamRenderer } from '../caller-dialect.js';
import { finalErrorFields, type StreamError } from '../shared/final-error-fields.js';
import { functionCallItem } from './render-openai-response.js';
import { incompleteReasonOf, itemIdOf, responseIdOf, responseObject, withResponseId } from './response-object.js';
import { dataOf, withData } from '../../streaming/sse-frame-text.js';
import type { ResponsesEcho } from './responses-echo.js';

/** The events that carry the whole response object (`response.created`, `.completed`, …), by their type as the provider writes it. */
const CARRIES_THE_RESPONSE = /"type":\s*"response\.(created|in_progress|queued|completed|incomplete|failed)"/;

type Part = { type: 'output_text' | 'refusal'; text: string };
type OpenMessage = { kind: 'message'; outputIndex: number; itemId: string; parts: Part[] };
type OpenReasoning = { kind: 'reasoning'; outputIndex: number; itemId: string; text: string; encryptedContent?: string };
type OpenCall = { outputIndex: number; itemId: string; id: string; name: string; arguments: string };

/**
 * Renders canonical stream events as the Responses event sequence: `response.created` and
 * `response.in_progress` with the first event (the engine writes nothing before the commit
 * point), one output item per message, reasoning summary or function call — each added, streamed
 * and done — then `response.completed` or `response.incomplete` with usage. Every event carries
 * `sequence_number` from 0; the stream has no `[DONE]`.
 */
export class ResponsesStreamWriter implements StreamRenderer {
  readonly #id: string;
  readonly #echo: ResponsesEcho;
  readonly #showReasoning: boolean;
  #model: string;
  #createdAt = Math.floor(Date.now() / 1000);
  #sequence = 0;
  #begun = false;
  /** Output items by `output_index`: each done item, undefined while it is still streaming. */
  readonly #output: (Record<string, unknown> | undefined)[] = [];
  #open: OpenMessage | OpenReasoning | undefined;
  readonly #calls = new Map<number, OpenCall>();
  #usage: Usage | undefined;
  #finish: FinishReason | undefined;
  /** The closing events and the final response, made once by `finalAnswer()` or `end()`. */
  #final: { text: string; type: string; response: Record<string, unknown> } | undefined;

  constructor(options: { requestId: string; model: string; echo: ResponsesEcho }) {
    this.#id = responseIdOf(options.requestId);
    this.#model = options.model;
    this.#echo = options.echo;
    this.#showReasoning = options.echo.reasoning.summary !== null;
  }

  write(event: StreamEvent): string {
    switch (event.type) {
      case 'response-start':
        if (event.responseModel) this.#model = event.responseModel;
        if (event.created !== undefined) this.#createdAt = event.created;
        return this.#begin();
      case 'text-delta':
        return this.#partDelta('output_text', event.text);
      case 'refusal-delta':
        return this.#partDelta('refusal', event.text);
      case 'reasoning-delta':
        return this.#showReasoning ? this.#reasoningDelta(event.text) : '';
      case 'tool-call-start': {
        let text = this.#begin() + this.#closeOpen();
        const call: OpenCall = { outputIndex: this.#output.length, itemId: '', id: event.id, name: event.name, arguments: '' };
        call.itemId = itemIdOf('fc', this.#id, call.outputIndex);
        this.#output.push(undefined);
        this.#calls.set(event.index, call);
        text += this.#event('response.output_item.added', { output_index: call.outputIndex, item: this.#callItem(call, 'in_progress') });
        return text;
      }
      case 'tool-call-delta': {
        const call = this.#calls.get(event.index);
        if (!call) return '';
        call.arguments += event.argumentsDelta;
        return this.#event('response.function_call_arguments.delta', { item_id: call.itemId, output_index: call.outputIndex, delta: event.argumentsDelta });
      }
      case 'tool-call-end':
        return this.#closeCall(event.index);
      case 'usage':
        this.#usage = event.usage;
        return '';
      case 'finish':
        this.#finish = event.reason;
        return this.#closeAll();
      case 'provider-error':
        return this.error(event.error);
      case 'output-item':
        return this.#passedThroughItem(event.item);
      // Signatures and encrypted reasoning have no place in a translated Responses stream.
      case 'reasoning-start':
      case 'reasoning-signature':
      case 'reasoning-redacted':
      case 'malformed-event':
      // A relayed stream's frames go out through `relayRenderer`, never through a dialect's writer.
      case 'relay-frame':
        return '';
    }
  }

  /** `response.completed` (or `response.incomplete`, with its reason) carrying the whole response. */
  end(): string {
    const { text, type, response } = this.#settle();
    return text + this.#event(type, { response });
  }

  /** A relayed lifecycle event's response under the gateway's id (see `responseIdOf`); any other frame as it came. */
  relayedFrame(text: string): string {
    return CARRIES_THE_RESPONSE.test(text) ? withData(text, withResponseId(dataOf(text), this.#id)) : text;
  }

  /** The response `end()` sends, every open item closed (their done events wait for `end()`). */
  finalAnswer(): Record<string, unknown> {
    return this.#settle().response;
  }

  #settle(): { text: string; type: string; response: Record<string, unknown> } {
    if (!this.#final) {
      const text = this.#begin() + this.#closeAll();
      const incompleteReason = incompleteReasonOf(this.#finish);
      const response = this.#response(incompleteReason ? 'incomplete' : 'completed', { incompleteReason });
      this.#final = { text, type: incompleteReason ? 'response.incomplete' : 'response.completed', response };
    }
    return this.#final;
  }

  /**
   * An `error` event, its error nested as OpenAI's recorded streams nest it (the official SDKs
   * raise on a top-level `error`), then `response.failed`; never `response.completed`.
   */
  error(error: StreamError): string {
    const text = this.#event('error', { error: { type: error.kind, code: error.kind, message: error.message, param: null, ...finalErrorFields(error) } });
    const response = this.#response('failed', { error: { code: error.kind, message: error.message } });
    return text + this.#event('response.failed', { response });
  }

  #begin(): string {
    if (this.#begun) return '';
    this.#begun = true;
    const response = this.#response('in_progress', {});
    return this.#event('response.created', { response }) + this.#event('response.in_progress', { response });
  }

  #partDelta(type: Part['type'], delta: string): string {
    let text = this.#begin();
    if (this.#open?.kind !== 'message') {
      text += this.#closeOpen();
      const outputIndex = this.#output.length;
      this.#output.push(undefined);
      this.#open = { kind: 'message', outputIndex, itemId: itemIdOf('msg', this.#id, outputIndex), parts: [] };
      text += this.#event('response.output_item.added', {
        output_index: outputIndex,
        item: { id: this.#open.itemId, type: 'message', status: 'in_progress', content: [], role: 'assistant' },
      });
    }
    const message = this.#open;
    if (message.parts.at(-1)?.type !== type) {
      if (message.parts.length > 0) text += this.#closePart(message);
      message.parts.push({ type, text: '' });
      text += this.#event('response.content_part.added', { ...this.#partPlace(message), part: partObject({ type, text: '' }) });
    }
    message.parts.at(-1)!.text += delta;
    if (type === 'refusal') return text + this.#event('response.refusal.delta', { ...this.#partPlace(message), delta });
    return text + this.#event('response.output_text.delta', { ...this.#partPlace(message), delta, logprobs: [] });
  }

  #reasoningDelta(delta: string): string {
    let text = this.#begin();
    if (this.#open?.kind !== 'reasoning') {
      text += this.#closeOpen();
      const outputIndex = this.#output.length;
      this.#output.push(undefined);
      this.#open = { kind: 'reasoning', outputIndex, itemId: itemIdOf('rs', this.#id, outputIndex), text: '' };
      text += this.#event('response.output_item.added', { output_index: outputIndex, item: { id: this.#open.itemId, type: 'reasoning', summary: [] } });
      text += this.#event('response.reasoning_summary_part.added', { ...this.#summaryPlace(this.#open), part: { type: 'summary_text', text: '' } });
    }
    this.#open.text += delta;
    return text + this.#event('response.reasoning_summary_text.delta', { ...this.#summaryPlace(this.#open), delta });
  }

  /**
   * An item of a Responses upstream as it came (encrypted reasoning, a hosted tool call). The
   * encrypted content of the reasoning being streamed joins that item rather than a second one.
   */
  #passedThroughItem(item: Record<string, unknown>): string {
    let text = this.#begin();
    if (item.type === 'reasoning' && this.#open?.kind === 'reasoning' && typeof item.encrypted_content === 'string') {
      this.#open.encryptedContent = item.encrypted_content;
      return text + this.#closeOpen();
    }
    text += this.#closeOpen();
    const outputIndex = this.#output.length;
    this.#output.push(item);
    return text + this.#event('response.output_item.added', { output_index: outputIndex, item }) + this.#event('response.output_item.done', { output_index: outputIndex, item });
  }

  #closeAll(): string {
    let text = this.#closeOpen();
    for (const index of [...this.#calls.keys()]) text += this.#closeCall(index);
    return text;
  }

  #closeOpen(): string {
    const open = this.#open;
    if (!open) return '';
    this.#open = undefined;
    if (open.kind === 'reasoning') {
      const part = { type: 'summary_text', text: open.text };
      const item = { id: open.itemId, type: 'reasoning', summary: [part], ...(open.encryptedContent === undefined ? {} : { encrypted_content: open.encryptedContent }) };
      this.#output[open.outputIndex] = item;
      return (
        this.#event('response.reasoning_summary_text.done', { ...this.#summaryPlace(open), text: open.text }) +
        this.#event('response.reasoning_summary_part.done', { ...this.#summaryPlace(open), part }) +
        this.#event('response.output_item.done', { output_index: open.outputIndex, item })
      );
    }
    const item = {
      id: open.itemId,
      type: 'message',
      status: incompleteReasonOf(this.#finish) ? 'incomplete' : 'completed',
      content: open.parts.map(partObject),
      role: 'assistant',
    };
    this.#output[open.outputIndex] = item;
    return this.#closePart(open) + this.#event('response.output_item.done', { output_index: open.outputIndex, item });
  }

  /** The done events of a message's last part. */
  #closePart(message: OpenMessage): string {
    const part = message.parts.at(-1)!;
    const done =
      part.type === 'refusal'
        ? this.#event('response.refusal.done', { ...this.#partPlace(message), refusal: part.text })
        : this.#event('response.output_text.done', { ...this.#partPlace(message), text: part.text, logprobs: [] });
    return done + this.#event('response.content_part.done', { ...this.#partPlace(message), part: partObject(part) });
  }

  #closeCall(index: number): string {
    const call = this.#calls.get(index);
    if (!call) return '';
    this.#calls.delete(index);
    const item = this.#callItem(call, 'completed');
    this.#output[call.outputIndex] = item;
    return (
      this.#event('response.function_call_arguments.done', { item_id: call.itemId, output_index: call.outputIndex, arguments: call.arguments }) +
      this.#event('response.output_item.done', { output_index: call.outputIndex, item })
    );
  }

  #callItem(call: OpenCall, status: 'in_progress' | 'completed'): Record<string, unknown> {
    return functionCallItem(call.itemId, { id: call.id, name: call.name, arguments: status === 'completed' ? call.arguments : '' }, this.#echo.tools, status);
  }

  #partPlace(message: OpenMessage): Record<string, unknown> {
    return { item_id: message.itemId, output_index: message.outputIndex, content_index: message.parts.length - 1 };
  }

  #summaryPlace(reasoning: OpenReasoning): Record<string, unknown> {
    return { item_id: reasoning.itemId, output_index: reasoning.outputIndex, summary_index: 0 };
  }

  #response(
    status: 'in_progress' | 'completed' | 'incomplete' | 'failed',
    extra: { incompleteReason?: 'max_output_tokens' | 'content_filter' | undefined; error?: { code: string; message: string } },
  ): Record<string, unknown> {
    return responseObject(
      {
        id: this.#id,
        createdAt: this.#createdAt,
        status,
        model: this.#model,
        // Items still streaming when a stream fails are left out: only done items are whole.
        output: status === 'in_progress' ? [] : this.#output.filter((item) => item !== undefined),
        usage: status === 'in_progress' ? undefined : this.#usage,
        ...extra,
      },
      this.#echo,
    );
  }

  #event(type: string, fields: Record<string, unknown>): string {
    const payload = JSON.stringify({ type, sequence_number: this.#sequence++, ...fields });
    return `event: ${type}\ndata: ${payload}\n\n`;
  }
}

function partObject(part: Part): Record<string, unknown> {
  return part.type === 'refusal' ? { type: 'refusal', refusal: part.text } : { type: 'output_text', annotations: [], logprobs: [], text: part.text };
}
