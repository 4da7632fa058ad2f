import type { Usage } from '../../core/usage.js';
import { readNumber, type JsonRecord } from '../shared/json-fields.js';

/**
 * `usageMetadata` → canonical. `promptTokenCount` already includes cached tokens; tool-use
 * prompt tokens (from built-in tools) are input too; `candidatesTokenCount` excludes thoughts.
 * Zero counts are left out of the JSON (proto3), hence the defaults.
 */
export function readGeminiUsage(metadata: JsonRecord): Usage {
  const thoughtsTokens = readNumber(metadata, 'thoughtsTokenCount');
  return {
    inputTokens: (readNumber(metadata, 'promptTokenCount') ?? 0) + (readNumber(metadata, 'toolUsePromptTokenCount') ?? 0),
    outputTokens: (readNumber(metadata, 'candidatesTokenCount') ?? 0) + (thoughtsTokens ?? 0),
    cacheReadTokens: readNumber(metadata, 'cachedContentTokenCount'),
    reasoningTokens: thoughtsTokens,
  };
}
