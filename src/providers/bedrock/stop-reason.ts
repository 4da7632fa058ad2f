import type { FinishReason } from '../spec.js';
import { readRecord, readString, type JsonRecord } from '../shared/json-fields.js';

/**
 * Converse `stopReason` → canonical. A malformed model output or tool use is the model failing
 * (`error`); unknown reasons count as a normal stop, the raw word kept beside it.
 */
export function mapBedrockStopReason(reason: string | undefined): FinishReason {
  switch (reason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content_filter';
    case 'malformed_model_output':
    case 'malformed_tool_use':
      return 'error';
    default:
      return 'stop';
  }
}

/** The matched stop sequence, which Claude models echo as `additionalModelResponseFields.delta.stop_sequence`. */
export function readBedrockStopSequence(record: JsonRecord): string | undefined {
  const delta = readRecord(readRecord(record, 'additionalModelResponseFields') ?? {}, 'delta');
  return delta === undefined ? undefined : readString(delta, 'stop_sequence');
}
