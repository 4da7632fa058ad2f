import { FailureKind } from '../../errors/failure-kind.js';
import type { SseFrame, StreamEvent } from '../spec.js';
import { excerptBody } from '../shared/body-excerpt.js';
import { isRecord, readNumber, readRecord, readString, type JsonRecord } from '../shared/json-fields.js';
import { parseJson } from '../shared/parse-json.js';
import { classifyAnthropicError, readAnthropicErrorDetails } from './parse-error.js';
import { mapAnthropicStopReason } from './stop-reason.js';
import { readAnthropicUsageCounts, toCanonicalUsage, type AnthropicUsageCounts } from './usage.js';

interface StreamState {
  /** Anthropic content-block index → canonical tool-call index (0, 1, … over tool_use blocks). */
  toolIndexByBlock: Map<number, number>;
  /** Usage so far: `message_delta` is cumulative but may omit the input counts. */
  usage: AnthropicUsageCounts;
}

/** Messages API SSE events → canonical stream events. */
export async function* parseAnthropicStream(frames: AsyncIterable<SseFrame>): AsyncIterable<StreamEvent> {
  const state: StreamState = { toolIndexByBlock: new Map(), usage: {} };
  for await (const frame of frames) {
    // Event data is JSON, sometimes padded with whitespace before the closing brace.
    const parsed = parseJson(frame.data);
    if (!parsed.ok || !isRecord(parsed.value)) {
      // An error event ends the stream even when its data cannot be read.
      if (frame.event === 'error') {
        yield { type: 'provider-error', error: { kind: FailureKind.serverError, message: excerptBody(frame.data) } };
        return;
      }
      yield { type: 'malformed-event', data: frame.data };
      continue;
    }
    const event = parsed.value;
    const type = frame.event === 'error' ? 'error' : (readString(event, 'type') ?? frame.event);
    switch (type) {
      case 'message_start':
        yield* messageStartEvents(event, state);
        break;
      case 'content_block_start':
        yield* blockStartEvents(event, state);
        break;
      case 'content_block_delta':
        yield* blockDeltaEvents(event, state);
        break;
      case 'content_block_stop': {
        const toolIndex = state.toolIndexByBlock.get(readNumber(event, 'index') ?? -1);
        if (toolIndex !== undefined) yield { type: 'tool-call-end', index: toolIndex };
        break;
      }
      case 'message_delta':
        yield* messageDeltaEvents(event, state);
        break;
      case 'message_stop':
        return;
      case 'error': {
        // Anthropic closes the stream after an error event, with no message_stop.
        const details = readAnthropicErrorDetails(event) ?? { message: 'Anthropic reported an error in the stream.' };
        yield { type: 'provider-error', error: classifyAnthropicError(details) };
        return;
      }
      default:
      // `ping`, and event types Anthropic may add later, carry nothing to forward.
    }
  }
}

function* messageStartEvents(event: JsonRecord, state: StreamState): Iterable<StreamEvent> {
  const message = readRecord(event, 'message') ?? {};
  yield { type: 'response-start', id: readString(message, 'id'), responseModel: readString(message, 'model') };
  const usage = readRecord(message, 'usage');
  if (usage !== undefined) {
    state.usage = readAnthropicUsageCounts(usage);
    yield { type: 'usage', usage: toCanonicalUsage(state.usage) };
  }
}

function* blockStartEvents(event: JsonRecord, state: StreamState): Iterable<StreamEvent> {
  const block = readRecord(event, 'content_block') ?? {};
  const blockIndex = readNumber(event, 'index');
  switch (block.type) {
    case 'text': {
      const text = readString(block, 'text');
      if (text) yield { type: 'text-delta', text };
      break;
    }
    case 'thinking': {
      const thinking = readString(block, 'thinking');
      if (thinking) yield { type: 'reasoning-delta', text: thinking };
      break;
    }
    case 'tool_use': {
      if (blockIndex === undefined) break;
      const index = state.toolIndexByBlock.size;
      state.toolIndexByBlock.set(blockIndex, index);
      const id = readString(block, 'id') ?? '';
      yield { type: 'tool-call-start', index, id, name: readString(block, 'name') ?? '' };
      break;
    }
    default:
    // Server-tool and other blocks are the provider's business; their deltas are skipped too.
  }
}

function* blockDeltaEvents(event: JsonRecord, state: StreamState): Iterable<StreamEvent> {
  const delta = readRecord(event, 'delta') ?? {};
  switch (delta.type) {
    case 'text_delta': {
      const text = readString(delta, 'text');
      if (text) yield { type: 'text-delta', text };
      break;
    }
    case 'thinking_delta': {
      const thinking = readString(delta, 'thinking');
      if (thinking) yield { type: 'reasoning-delta', text: thinking };
      break;
    }
    case 'input_json_delta': {
      const toolIndex = state.toolIndexByBlock.get(readNumber(event, 'index') ?? -1);
      const argumentsDelta = readString(delta, 'partial_json');
      if (toolIndex !== undefined && argumentsDelta) {
        yield { type: 'tool-call-delta', index: toolIndex, argumentsDelta };
      }
      break;
    }
    default:
    // Signature and citation deltas have no canonical counterpart.
  }
}

function* messageDeltaEvents(event: JsonRecord, state: StreamState): Iterable<StreamEvent> {
  const usage = readRecord(event, 'usage');
  if (usage !== undefined) {
    state.usage = { ...state.usage, ...readAnthropicUsageCounts(usage) };
    yield { type: 'usage', usage: toCanonicalUsage(state.usage) };
  }
  const delta = readRecord(event, 'delta') ?? {};
  const stopReason = readString(delta, 'stop_reason');
  if (stopReason !== undefined) {
    yield {
      type: 'finish',
      reason: mapAnthropicStopReason(stopReason),
      providerReason: stopReason,
      stopSequence: readString(delta, 'stop_sequence'),
    };
  }
}
