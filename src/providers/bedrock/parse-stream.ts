import type { UpstreamFailure, StreamEvent, StreamParser } from '../spec.js';
import type { SseFrame } from '../../streaming/sse-frame.js';
import { excerptBody } from '../shared/body-excerpt.js';
import { isRecord, readNumber, readRecord, readString, type JsonRecord } from '../shared/json-fields.js';
import { parseJson } from '../shared/parse-json.js';
import { classifyBedrockError } from './parse-error.js';
import { mapBedrockStopReason, readBedrockStopSequence } from './stop-reason.js';
import { readBedrockUsage } from './usage.js';

/**
 * ConverseStream frames (from `AwsEventStreamDecoder`) → canonical stream events. Payloads may
 * carry a padding member `p`, which is never read. Usage comes once, in `metadata`, and
 * `metadata` and `messageStop` arrive in either order: the stream has said its last word only
 * when both have come.
 */
export class BedrockStreamParser implements StreamParser {
  done = false;
  #started = false;
  #stopped = false;
  #metadataSeen = false;
  /** Converse content-block index → canonical tool-call index (0, 1, … over toolUse blocks). */
  readonly #toolIndexByBlock = new Map<number, number>();

  push(frame: SseFrame, out: StreamEvent[]): void {
    if (this.done) return;
    if (isErrorFrame(frame)) {
      out.push({ type: 'provider-error', error: readStreamError(frame) });
      this.done = true;
      return;
    }
    const parsed = parseJson(frame.data);
    if (!parsed.ok || !isRecord(parsed.value)) {
      out.push({ type: 'malformed-event', data: frame.data });
      return;
    }
    const payload = parsed.value;
    switch (frame.event) {
      case 'messageStart':
        this.#start(out);
        break;
      case 'contentBlockStart':
        this.#start(out);
        this.#blockStart(payload, out);
        break;
      case 'contentBlockDelta':
        this.#start(out);
        this.#blockDelta(payload, out);
        break;
      case 'contentBlockStop': {
        this.#start(out);
        const toolIndex = this.#toolIndexByBlock.get(readNumber(payload, 'contentBlockIndex') ?? -1);
        if (toolIndex !== undefined) out.push({ type: 'tool-call-end', index: toolIndex });
        break;
      }
      case 'messageStop': {
        this.#start(out);
        const stopReason = readString(payload, 'stopReason');
        out.push({
          type: 'finish',
          reason: mapBedrockStopReason(stopReason),
          providerReason: stopReason,
          stopSequence: readBedrockStopSequence(payload),
        });
        this.#stopped = true;
        break;
      }
      case 'metadata': {
        this.#start(out);
        const usage = readRecord(payload, 'usage');
        if (usage !== undefined) out.push({ type: 'usage', usage: readBedrockUsage(usage) });
        this.#metadataSeen = true;
        break;
      }
      default:
      // Event types Bedrock may add later carry nothing to forward.
    }
    this.done = this.#stopped && this.#metadataSeen;
  }

  /** Converse names neither the response nor the model, and may open with a content block. */
  #start(out: StreamEvent[]): void {
    if (this.#started) return;
    this.#started = true;
    out.push({ type: 'response-start' });
  }

  #blockStart(payload: JsonRecord, out: StreamEvent[]): void {
    const blockIndex = readNumber(payload, 'contentBlockIndex');
    const toolUse = readRecord(readRecord(payload, 'start') ?? {}, 'toolUse');
    if (blockIndex === undefined || toolUse === undefined) return;
    const index = this.#toolIndexByBlock.size;
    this.#toolIndexByBlock.set(blockIndex, index);
    out.push({
      type: 'tool-call-start',
      index,
      id: readString(toolUse, 'toolUseId') ?? '',
      name: readString(toolUse, 'name') ?? '',
    });
  }

  #blockDelta(payload: JsonRecord, out: StreamEvent[]): void {
    const delta = readRecord(payload, 'delta') ?? {};
    const text = readString(delta, 'text');
    if (text) out.push({ type: 'text-delta', text });
    const reasoning = readRecord(delta, 'reasoningContent');
    const reasoningText = reasoning === undefined ? undefined : readString(reasoning, 'text');
    if (reasoningText) out.push({ type: 'reasoning-delta', text: reasoningText });
    const toolUse = readRecord(delta, 'toolUse');
    if (toolUse === undefined) return;
    const toolIndex = this.#toolIndexByBlock.get(readNumber(payload, 'contentBlockIndex') ?? -1);
    const argumentsDelta = readString(toolUse, 'input');
    if (toolIndex !== undefined && argumentsDelta) out.push({ type: 'tool-call-delta', index: toolIndex, argumentsDelta });
  }
}

/** Exceptions come as `throttlingException` and the like; unmodeled errors as `error` (see the decoder). */
function isErrorFrame(frame: SseFrame): boolean {
  return frame.event === 'error' || frame.event?.endsWith('Exception') === true;
}

function readStreamError(frame: SseFrame): UpstreamFailure {
  const parsed = parseJson(frame.data);
  const payload = parsed.ok && isRecord(parsed.value) ? parsed.value : {};
  const type = frame.event === 'error' ? readString(payload, '__type') : frame.event;
  const message =
    readString(payload, 'message') || excerptBody(frame.data) || `Bedrock ended the stream with ${type ?? 'an error'}.`;
  return classifyBedrockError({ type, message });
}
