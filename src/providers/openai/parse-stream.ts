import type { SseFrame, StreamEvent } from '../spec.js';
import { isRecord, readArray, readNumber, readRecord, readString, type JsonRecord } from '../shared/json-fields.js';
import { parseJson } from '../shared/parse-json.js';
import { mapOpenAiFinishReason } from './finish-reason.js';
import { classifyOpenAiError, readEmbeddedError } from './parse-error.js';
import { readOpenAiUsage } from './usage.js';

/** Chat Completions SSE chunks → canonical stream events. */
export async function* parseOpenAiStream(frames: AsyncIterable<SseFrame>): AsyncIterable<StreamEvent> {
  let started = false;
  // Tool calls started and not yet ended, by OpenAI's tool index, in start order.
  const openToolCalls = new Set<number>();

  for await (const frame of frames) {
    if (frame.data.trim() === '[DONE]') return;
    const parsed = parseJson(frame.data);
    if (!parsed.ok || !isRecord(parsed.value)) {
      yield { type: 'malformed-event', data: frame.data };
      continue;
    }
    const chunk = parsed.value;

    // The error ends the stream: OpenAI closes the connection after it, without [DONE].
    const error = readEmbeddedError(chunk);
    if (error !== undefined) {
      yield { type: 'provider-error', error: classifyOpenAiError(error) };
      return;
    }

    if (!started) {
      started = true;
      yield {
        type: 'response-start',
        id: readString(chunk, 'id'),
        responseModel: readString(chunk, 'model'),
        created: readNumber(chunk, 'created'),
        systemFingerprint: readString(chunk, 'system_fingerprint'),
      };
    }

    const choice = readArray(chunk, 'choices')?.find(isFirstChoice);
    if (choice !== undefined) yield* choiceEvents(choice, openToolCalls);

    const usage = readRecord(chunk, 'usage');
    if (usage !== undefined) yield { type: 'usage', usage: readOpenAiUsage(usage) };
  }
}

/** The gateway answers with one choice; other choices (`n` > 1) are not forwarded. */
function isFirstChoice(choice: unknown): choice is JsonRecord {
  return isRecord(choice) && (readNumber(choice, 'index') ?? 0) === 0;
}

function* choiceEvents(choice: JsonRecord, openToolCalls: Set<number>): Iterable<StreamEvent> {
  const delta = readRecord(choice, 'delta');
  if (delta !== undefined) {
    // `reasoning_content` (DeepSeek and others) or `reasoning` (OpenRouter, Ollama).
    const reasoning = readString(delta, 'reasoning_content') ?? readString(delta, 'reasoning');
    if (reasoning) yield { type: 'reasoning-delta', text: reasoning };
    const text = readString(delta, 'content');
    if (text) yield { type: 'text-delta', text };
    const refusal = readString(delta, 'refusal');
    if (refusal) yield { type: 'refusal-delta', text: refusal };
    yield* toolCallEvents(readArray(delta, 'tool_calls') ?? [], openToolCalls);
  }

  const finishReason = readString(choice, 'finish_reason');
  if (finishReason) {
    for (const index of openToolCalls) yield { type: 'tool-call-end', index };
    openToolCalls.clear();
    yield { type: 'finish', reason: mapOpenAiFinishReason(finishReason), providerReason: finishReason };
  }
}

function* toolCallEvents(entries: readonly unknown[], openToolCalls: Set<number>): Iterable<StreamEvent> {
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
      yield { type: 'tool-call-start', index, id, name: readString(fn, 'name') ?? '' };
    }
    if (argumentsDelta) yield { type: 'tool-call-delta', index, argumentsDelta };
  }
}
