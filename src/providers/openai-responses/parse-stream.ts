import type { StreamEvent, StreamParser } from '../spec.js';
import type { SseFrame } from '../../streaming/sse-frame.js';
import { isRecord, readNumber, readRecord, readString, type JsonRecord } from '../shared/json-fields.js';
import { parseJson } from '../shared/parse-json.js';
import { responsesFinish } from './finish-reason.js';
import { failureOfResponse, readInBandFailure } from './parse-error.js';
import { isPassedThroughItem } from './passed-through-item.js';
import { calledToolName } from './tool-name.js';
import { readResponsesUsage } from './usage.js';

type OpenCall = { index: number; argumentsSeen: boolean };

/**
 * Responses SSE events → canonical stream events. `response.created` / `.in_progress` /
 * `.queued` start the response and carry no content, nor do a message item or its empty part
 * opening, so none of them commits a stream; `error` and `response.failed` end it as a provider
 * error, which before content is an attempt failure like any other. The stream has no `[DONE]`:
 * `response.completed` or `response.incomplete` is its last word.
 */
export class OpenAiResponsesStreamParser implements StreamParser {
  done = false;
  #started = false;
  /** Function calls by their item id; `index` counts calls only. */
  readonly #calls = new Map<string, OpenCall>();

  push(frame: SseFrame, out: StreamEvent[]): void {
    if (this.done) return;
    const parsed = parseJson(frame.data);
    if (!parsed.ok || !isRecord(parsed.value)) {
      out.push({ type: 'malformed-event', data: frame.data });
      return;
    }
    const event = parsed.value;
    const type = readString(event, 'type') ?? frame.event ?? '';
    switch (type) {
      case 'response.created':
      case 'response.in_progress':
      case 'response.queued':
        this.#start(readRecord(event, 'response') ?? {}, out);
        return;
      case 'response.output_text.delta':
        return this.#delta(out, { type: 'text-delta', text: readString(event, 'delta') ?? '' });
      case 'response.refusal.delta':
        return this.#delta(out, { type: 'refusal-delta', text: readString(event, 'delta') ?? '' });
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        return this.#delta(out, { type: 'reasoning-delta', text: readString(event, 'delta') ?? '' });
      case 'response.output_item.added':
        return this.#itemAdded(readRecord(event, 'item') ?? {}, out);
      case 'response.function_call_arguments.delta': {
        const call = this.#calls.get(readString(event, 'item_id') ?? '');
        const argumentsDelta = readString(event, 'delta') ?? '';
        if (call === undefined || argumentsDelta === '') return;
        call.argumentsSeen = true;
        out.push({ type: 'tool-call-delta', index: call.index, argumentsDelta });
        return;
      }
      case 'response.output_item.done':
        return this.#itemDone(readRecord(event, 'item') ?? {}, out);
      case 'response.completed':
      case 'response.incomplete':
        return this.#finish(readRecord(event, 'response') ?? {}, out);
      case 'response.failed':
        this.done = true;
        out.push({ type: 'provider-error', error: failureOfResponse({ status: 'failed', ...readRecord(event, 'response') }) ?? readInBandFailure({}) });
        return;
      case 'error':
        // `response.failed` follows; the first word of the failure is enough.
        this.done = true;
        out.push({ type: 'provider-error', error: readInBandFailure(event) });
        return;
      default:
        // Part and item bookkeeping (`content_part.added`, `output_text.done`, …) and events of
        // hosted tools carry nothing the canonical stream lacks.
        return;
    }
  }

  #start(response: JsonRecord, out: StreamEvent[]): void {
    if (this.#started) return;
    this.#started = true;
    out.push({ type: 'response-start', id: readString(response, 'id'), responseModel: readString(response, 'model'), created: readNumber(response, 'created_at') });
  }

  #delta(out: StreamEvent[], event: StreamEvent & { text: string }): void {
    if (event.text === '') return;
    this.#start({}, out);
    out.push(event);
  }

  #itemAdded(item: JsonRecord, out: StreamEvent[]): void {
    if (readString(item, 'type') !== 'function_call') return;
    this.#start({}, out);
    const call: OpenCall = { index: this.#calls.size, argumentsSeen: false };
    this.#calls.set(readString(item, 'id') ?? `fc_${call.index}`, call);
    out.push({ type: 'tool-call-start', index: call.index, id: readString(item, 'call_id') ?? '', name: calledToolName(item) });
  }

  #itemDone(item: JsonRecord, out: StreamEvent[]): void {
    if (readString(item, 'type') === 'function_call') {
      const call = this.#calls.get(readString(item, 'id') ?? '');
      if (call === undefined) return;
      // A call whose arguments came whole, without deltas, still reaches the caller.
      const whole = readString(item, 'arguments') ?? '';
      if (!call.argumentsSeen && whole !== '') out.push({ type: 'tool-call-delta', index: call.index, argumentsDelta: whole });
      out.push({ type: 'tool-call-end', index: call.index });
      return;
    }
    // The encrypted content is whole only on `done` (the `added` copy may be incomplete).
    if (isPassedThroughItem(item)) out.push({ type: 'output-item', item });
  }

  #finish(response: JsonRecord, out: StreamEvent[]): void {
    this.done = true;
    this.#start(response, out);
    const usage = readRecord(response, 'usage');
    if (usage !== undefined) out.push({ type: 'usage', usage: readResponsesUsage(usage) });
    const { reason, providerReason } = responsesFinish(response, this.#calls.size > 0);
    out.push({ type: 'finish', reason, providerReason });
  }
}
