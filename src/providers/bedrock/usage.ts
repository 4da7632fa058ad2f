import type { Usage } from '../../core/usage.js';
import { readNumber, type JsonRecord } from '../shared/json-fields.js';

/** Converse `usage` → canonical. Its `inputTokens` excludes cache reads and writes; canonical input includes them. */
export function readBedrockUsage(usage: JsonRecord): Usage {
  const cacheReadTokens = readNumber(usage, 'cacheReadInputTokens');
  const cacheWriteTokens = readNumber(usage, 'cacheWriteInputTokens');
  return {
    inputTokens: (readNumber(usage, 'inputTokens') ?? 0) + (cacheReadTokens ?? 0) + (cacheWriteTokens ?? 0),
    outputTokens: readNumber(usage, 'outputTokens') ?? 0,
    cacheReadTokens,
    cacheWriteTokens,
  };
}
