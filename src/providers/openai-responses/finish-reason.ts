import type { FinishReason } from '../spec.js';
import { readRecord, readString, type JsonRecord } from '../shared/json-fields.js';

/**
 * A finished Responses object's status → the canonical finish. The Responses API has no tool
 * finish of its own: a completed answer with a function call finished for its tool calls.
 */
export function responsesFinish(response: JsonRecord, hasToolCalls: boolean): { reason: FinishReason; providerReason: string } {
  const status = readString(response, 'status') ?? 'completed';
  if (status === 'incomplete') {
    const why = readString(readRecord(response, 'incomplete_details') ?? {}, 'reason') ?? 'incomplete';
    return { reason: why === 'content_filter' ? 'content_filter' : 'length', providerReason: why };
  }
  return { reason: hasToolCalls ? 'tool_calls' : 'stop', providerReason: status };
}
