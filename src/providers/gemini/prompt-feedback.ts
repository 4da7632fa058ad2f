import { FailureKind } from '../../core/failure-kind.js';
import type { UpstreamFailure } from '../spec.js';
import { readRecord, readString, type JsonRecord } from '../shared/json-fields.js';

/**
 * A prompt Gemini refused before generating anything: HTTP 200, no candidates, and
 * `promptFeedback.blockReason` (SAFETY, BLOCKLIST, PROHIBITED_CONTENT, OTHER, …).
 */
export function promptBlockedError(response: JsonRecord): UpstreamFailure | undefined {
  const feedback = readRecord(response, 'promptFeedback');
  const blockReason = feedback && readString(feedback, 'blockReason');
  if (blockReason === undefined) return undefined;
  return {
    kind: FailureKind.moderation,
    code: blockReason,
    message: `Gemini blocked the prompt before answering (${blockReason}).`,
  };
}
