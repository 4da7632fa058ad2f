import type { StreamEvent, StreamParser } from '../spec.js';
import type { SseFrame } from '../../streaming/sse-frame.js';
import { isRecord, readArray, readNumber, readRecord, readString, type JsonRecord } from '../shared/json-fields.js';
import { parseJson } from '../shared/parse-json.js';
import { mapOpenAiFinishReason } from './finish-reason.js';
import { classifyOpenAiError, readEmbeddedError } from './parse-error.js';
import { readOpenAiUsage } from './usage.js';

/** Chat Completions SSE chunks → canonical stream events. */
export class OpenAiStreamParser implements StreamParser {
  done = false;
  #started = false;
  /** Tool calls started and not yet ended, by OpenAI's tool index, in start order. */
  readonly #openToolCalls = new Set<number>();

  push(frame: SseFrame, out: StreamEvent[]): void {
    if (this.done) return;
    if (frame.data.trim() === '[DONE]') {
      this.done = true;
      return;
    }
    const parsed = parseJson(frame.data);
    if (!parsed.ok || !isRecord(parsed.value)) {
      out.push({ type: 'malformed-event', data: frame.data });
      return;
    }
    const chunk = parsed.value;

    // The error ends the stream: OpenAI closes the connection after it, without [DONE].
    const error = readEmbeddedError(chunk);
    if (error !== undefined) {
      out.push({ type: 'provider-error', error: classifyOpenAiError(error) });
      this.done = true;
      return;
    }

    if (!this.#started) {
      this.#started = true;
      out.push({
        type: 'response-start',
        id: readString(chunk, 'id'),
        responseModel: readString(chunk, 'model'),
        created: readNumber(chunk, 'created'),
        systemFingerprint: readString(chunk, 'system_fingerprint'),
      });
    }

    const choice = readArray(chunk, 'choices')?.find(isFirstChoice);
    if (choice !== undefined) choiceEvents(choice, this.#openToolCalls, out);
    const usage = readRecord(chunk, 'usage');
    if (usage !== undefined) out.push({ type: 'usage', usage: readOpenAiUsage(usage) });
  }
}

/** The gateway answers with one choice; other choices (`n` > 1) are not forwarded. */
function isFirstChoice(choice: unknown): choice is JsonRecord {
  return isRecord(choice) && (readNumber(choice, 'index') ?? 0) === 0;
}

function choiceEvents(choice: JsonRecord, openToolCalls: Set<number>, events: StreamEvent[]): void {
  const delta = readRecord(choice, 'delta');
  if (delta !== undefined) {
    // `reasoning_content` (DeepSeek and others) or `reasoning` (OpenRouter, Ollama).
    const reasoning = readString(delta, 'reasoning_content') ?? readString(delta, 'reasoning');
    if (reasoning) events.push({ type: 'reasoning-delta', text: reasoning });
    const text = readString(delta, 'content');
    if (text) events.push({ type: 'text-delta', text });
    const refusal = readString(delta, 'refusal');
    if (refusal) events.push({ type: 'refusal-delta', text: refusal });
    const toolCalls = readArray(delta, 'tool_calls');
    if (toolCalls !== undefined) toolCallEvents(toolCalls, openToolCalls, events);
  }

  const finishReason = readString(choice, 'finish_reason');
  if (finishReason) {
    for (const index of openToolCalls) events.push({ type: 'tool-call-end', index });
    openToolCalls.clear();
    events.push({ type: 'finish', reason: mapOpenAiFinishReason(finishReason), providerReason: finishReason });
  }
}

function toolCallEvents(entries: readonly unknown[], openToolCalls: Set<number>, events: StreamEvent[]): void {
  for (const [position, entry] of entries.entries()) {
    if (!isRecord(entry)) continue;
    // Some compatible hosts omit `index`; their entries are positional.
    const index = readNumber(entry, 'index') ?? position;
    const fn = readRecord(entry, 'function') ?? {};
    const argumentsDelta = readString(fn, 'arguments');
    // The first entry for an index starts the call. Hosts that repeat the id on every chunk
    // therefore do not restart it, and hosts that never send an id still get a stable one.
    if (!openToolCalls.has(index)) {
      openToolCalls.add(index);
      const id = readString(entry, 'id') ?? `call_${index}`;
      events.push({ type: 'tool-call-start', index, id, name: readString(fn, 'name') ?? '' });
    }
    if (argumentsDelta) events.push({ type: 'tool-call-delta', index, argumentsDelta });
  }
}
