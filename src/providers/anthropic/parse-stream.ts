import { FailureKind } from '../../core/failure-kind.js';
import type { StreamEvent, StreamParser } from '../spec.js';
import type { SseFrame } from '../../streaming/sse-frame.js';
import { excerptBody } from '../shared/body-excerpt.js';
import { isRecord, readNumber, readRecord, readString, type JsonRecord } from '../shared/json-fields.js';
import { parseJson } from '../shared/parse-json.js';
import { classifyAnthropicError, readAnthropicErrorDetails } from './parse-error.js';
import { mapAnthropicStopReason } from './stop-reason.js';
import { readAnthropicUsageCounts, toCanonicalUsage, type AnthropicUsageCounts } from './usage.js';

/** Messages API SSE events → canonical stream events. */
export class AnthropicStreamParser implements StreamParser {
  done = false;
  /** Anthropic content-block index → canonical tool-call index (0, 1, … over tool_use blocks). */
  readonly #toolIndexByBlock = new Map<number, number>();
  /** Usage so far: `message_delta` is cumulative but may omit the input counts. */
  #usage: AnthropicUsageCounts = {};

  push(frame: SseFrame, out: StreamEvent[]): void {
    if (this.done) return;
    // Event data is JSON, sometimes padded with whitespace before the closing brace.
    const parsed = parseJson(frame.data);
    if (!parsed.ok || !isRecord(parsed.value)) {
      // An error event ends the stream even when its data cannot be read.
      if (frame.event === 'error') {
        out.push({ type: 'provider-error', error: { kind: FailureKind.serverError, message: excerptBody(frame.data) } });
        this.done = true;
        return;
      }
      out.push({ type: 'malformed-event', data: frame.data });
      return;
    }
    const event = parsed.value;
    const type = frame.event === 'error' ? 'error' : (readString(event, 'type') ?? frame.event);
    switch (type) {
      case 'message_start':
        this.#messageStart(event, out);
        break;
      case 'content_block_start':
        this.#blockStart(event, out);
        break;
      case 'content_block_delta':
        this.#blockDelta(event, out);
        break;
      case 'content_block_stop': {
        const toolIndex = this.#toolIndexByBlock.get(readNumber(event, 'index') ?? -1);
        if (toolIndex !== undefined) out.push({ type: 'tool-call-end', index: toolIndex });
        break;
      }
      case 'message_delta':
        this.#messageDelta(event, out);
        break;
      case 'message_stop':
        this.done = true;
        break;
      case 'error': {
        // Anthropic closes the stream after an error event, with no message_stop.
        const details = readAnthropicErrorDetails(event) ?? { message: 'Anthropic reported an error in the stream.' };
        out.push({ type: 'provider-error', error: classifyAnthropicError(details) });
        this.done = true;
        break;
      }
      default:
      // `ping`, and event types Anthropic may add later, carry nothing to forward.
    }
  }

  #messageStart(event: JsonRecord, out: StreamEvent[]): void {
    const message = readRecord(event, 'message') ?? {};
    out.push({ type: 'response-start', id: readString(message, 'id'), responseModel: readString(message, 'model') });
    const usage = readRecord(message, 'usage');
    if (usage !== undefined) {
      this.#usage = readAnthropicUsageCounts(usage);
      out.push({ type: 'usage', usage: toCanonicalUsage(this.#usage) });
    }
  }

  #blockStart(event: JsonRecord, out: StreamEvent[]): void {
    const block = readRecord(event, 'content_block') ?? {};
    const blockIndex = readNumber(event, 'index');
    switch (block.type) {
      case 'text': {
        const text = readString(block, 'text');
        if (text) out.push({ type: 'text-delta', text });
        break;
      }
      case 'thinking': {
        out.push({ type: 'reasoning-start' });
        const thinking = readString(block, 'thinking');
        if (thinking) out.push({ type: 'reasoning-delta', text: thinking });
        // Empty at the start, as a rule; a block whose text was omitted may come signed already.
        const signature = readString(block, 'signature');
        if (signature) out.push({ type: 'reasoning-signature', signature });
        break;
      }
      case 'redacted_thinking':
        out.push({ type: 'reasoning-redacted', data: readString(block, 'data') ?? '' });
        break;
      case 'tool_use': {
        if (blockIndex === undefined) break;
        const index = this.#toolIndexByBlock.size;
        this.#toolIndexByBlock.set(blockIndex, index);
        const id = readString(block, 'id') ?? '';
        out.push({ type: 'tool-call-start', index, id, name: readString(block, 'name') ?? '' });
        break;
      }
      default:
      // Server-tool and other blocks are the provider's business; their deltas are skipped too.
    }
  }

  #blockDelta(event: JsonRecord, out: StreamEvent[]): void {
    const delta = readRecord(event, 'delta') ?? {};
    switch (delta.type) {
      case 'text_delta': {
        const text = readString(delta, 'text');
        if (text) out.push({ type: 'text-delta', text });
        break;
      }
      case 'thinking_delta': {
        const thinking = readString(delta, 'thinking');
        if (thinking) out.push({ type: 'reasoning-delta', text: thinking });
        break;
      }
      case 'signature_delta': {
        const signature = readString(delta, 'signature');
        if (signature) out.push({ type: 'reasoning-signature', signature });
        break;
      }
      case 'input_json_delta': {
        const toolIndex = this.#toolIndexByBlock.get(readNumber(event, 'index') ?? -1);
        const argumentsDelta = readString(delta, 'partial_json');
        if (toolIndex !== undefined && argumentsDelta) out.push({ type: 'tool-call-delta', index: toolIndex, argumentsDelta });
        break;
      }
      default:
      // Citation deltas have no canonical counterpart.
    }
  }

  #messageDelta(event: JsonRecord, out: StreamEvent[]): void {
    const usage = readRecord(event, 'usage');
    if (usage !== undefined) {
      this.#usage = { ...this.#usage, ...readAnthropicUsageCounts(usage) };
      out.push({ type: 'usage', usage: toCanonicalUsage(this.#usage) });
    }
    const delta = readRecord(event, 'delta') ?? {};
    const stopReason = readString(delta, 'stop_reason');
    if (stopReason !== undefined) {
      out.push({
        type: 'finish',
        reason: mapAnthropicStopReason(stopReason),
        providerReason: stopReason,
        stopSequence: readString(delta, 'stop_sequence'),
      });
    }
  }
}
