import type { Usage } from '../../core/usage.js';
import { readNumber, readRecord, type JsonRecord } from '../shared/json-fields.js';

/** Responses `usage` → canonical (`input_tokens` already includes cached tokens, `output_tokens` reasoning). */
export function readResponsesUsage(usage: JsonRecord): Usage {
  const inputDetails = readRecord(usage, 'input_tokens_details');
  const outputDetails = readRecord(usage, 'output_tokens_details');
  return {
    inputTokens: readNumber(usage, 'input_tokens') ?? 0,
    outputTokens: readNumber(usage, 'output_tokens') ?? 0,
    cacheReadTokens: inputDetails && readNumber(inputDetails, 'cached_tokens'),
    cacheWriteTokens: inputDetails && readNumber(inputDetails, 'cache_write_tokens'),
    reasoningTokens: outputDetails && readNumber(outputDetails, 'reasoning_tokens'),
  };
}
