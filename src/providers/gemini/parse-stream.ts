import type { StreamEvent, StreamParser } from '../spec.js';
import type { SseFrame } from '../../streaming/sse-frame.js';
import { isRecord, readRecord, readString, type JsonRecord } from '../shared/json-fields.js';
import { parseJson } from '../shared/parse-json.js';
import { mapGeminiFinishReason } from './finish-reason.js';
import { classifyGeminiError, readGeminiErrorDetails } from './parse-error.js';
import { promptBlockedError } from './prompt-feedback.js';
import { firstCandidate, readParts } from './read-parts.js';
import { toolCallIdOf } from './tool-call-id.js';
import { readGeminiUsage } from './usage.js';

/**
 * streamGenerateContent (`alt=sse`) chunks → canonical stream events. Each `data:` is a whole
 * GenerateContentResponse holding the next piece of the answer and the usage so far. There is no
 * end marker: the stream ends with the body, after the chunk that carries `finishReason`.
 */
export class GeminiStreamParser implements StreamParser {
  done = false;
  #started = false;
  #responseId: string | undefined;
  #toolCallCount = 0;

  push(frame: SseFrame, out: StreamEvent[]): void {
    if (this.done) return;
    const parsed = parseJson(frame.data);
    const error = parsed.ok ? readGeminiErrorDetails(parsed.value) : undefined;
    if (error !== undefined) {
      out.push({ type: 'provider-error', error: classifyGeminiError(error) });
      this.done = true;
      return;
    }
    if (!parsed.ok || !isRecord(parsed.value)) {
      out.push({ type: 'malformed-event', data: frame.data });
      return;
    }
    const chunk = parsed.value;
    const candidate = firstCandidate(chunk);
    // A blocked prompt comes as the only chunk, with no candidates.
    const blocked = candidate === undefined ? promptBlockedError(chunk) : undefined;
    if (blocked !== undefined) {
      out.push({ type: 'provider-error', error: blocked });
      this.done = true;
      return;
    }

    if (!this.#started) {
      this.#started = true;
      this.#responseId = readString(chunk, 'responseId');
      out.push({ type: 'response-start', id: this.#responseId, responseModel: readString(chunk, 'modelVersion') });
    }
    if (candidate !== undefined) this.#partEvents(candidate, out);
    // Every chunk reports the running totals.
    const usage = readRecord(chunk, 'usageMetadata');
    if (usage !== undefined) out.push({ type: 'usage', usage: readGeminiUsage(usage) });
    const finishReason = candidate && readString(candidate, 'finishReason');
    if (finishReason !== undefined) {
      const reason = mapGeminiFinishReason(finishReason, this.#toolCallCount > 0);
      out.push({ type: 'finish', reason, providerReason: finishReason });
    }
  }

  /** Gemini sends each function call whole, in one part: it starts, delivers and ends at once. */
  #partEvents(candidate: JsonRecord, out: StreamEvent[]): void {
    for (const part of readParts(candidate)) {
      if (part.type === 'text') out.push({ type: 'text-delta', text: part.text });
      else if (part.type === 'reasoning') out.push({ type: 'reasoning-delta', text: part.text });
      else {
        const index = this.#toolCallCount++;
        const id = toolCallIdOf({ index, responseId: this.#responseId, ...part.reference });
        out.push({ type: 'tool-call-start', index, id, name: part.name });
        out.push({ type: 'tool-call-delta', index, argumentsDelta: part.arguments });
        out.push({ type: 'tool-call-end', index });
      }
    }
  }
}
