import { isRecord, readArray, readNumber, readRecord, readString, type JsonRecord } from '../shared/json-fields.js';
import type { GeminiCallReference } from './tool-call-id.js';

/** One part of a candidate's content, in the terms the parsers need. */
export type GeminiPart =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'function-call'; name: string; arguments: string; reference: GeminiCallReference };

/** The gateway answers with one choice: the candidate with index 0 (an absent index is 0). */
export function firstCandidate(response: JsonRecord): JsonRecord | undefined {
  return readArray(response, 'candidates')?.filter(isRecord).find((candidate) => (readNumber(candidate, 'index') ?? 0) === 0);
}

/**
 * The parts that carry something canonical. A signature on a text part (Gemini 3 puts one on
 * the last part, sometimes on an otherwise empty one) has no canonical home and is dropped:
 * Gemini requires signatures back only on function calls.
 */
export function readParts(candidate: JsonRecord): GeminiPart[] {
  const content = readRecord(candidate, 'content');
  const parts = (content && readArray(content, 'parts')) ?? [];
  return parts.filter(isRecord).flatMap((part): GeminiPart[] => {
    const functionCall = readRecord(part, 'functionCall');
    if (functionCall !== undefined) {
      return [
        {
          type: 'function-call',
          name: readString(functionCall, 'name') ?? '',
          arguments: JSON.stringify(functionCall.args ?? {}),
          reference: { geminiId: readString(functionCall, 'id'), signature: readString(part, 'thoughtSignature') },
        },
      ];
    }
    const text = readString(part, 'text');
    if (!text) return [];
    return [{ type: part.thought === true ? 'reasoning' : 'text', text }];
  });
}
