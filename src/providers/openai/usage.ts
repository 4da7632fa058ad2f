import type { Usage } from '../../core/usage.js';
import { readNumber, readRecord, type JsonRecord } from '../shared/json-fields.js';

/** Chat Completions `usage` → canonical (`prompt_tokens` already includes cached tokens). */
export function readOpenAiUsage(usage: JsonRecord): Usage {
  const promptDetails = readRecord(usage, 'prompt_tokens_details');
  const completionDetails = readRecord(usage, 'completion_tokens_details');
  return {
    inputTokens: readNumber(usage, 'prompt_tokens') ?? 0,
    outputTokens: readNumber(usage, 'completion_tokens') ?? 0,
    cacheReadTokens:
      (promptDetails && readNumber(promptDetails, 'cached_tokens')) ??
      // DeepSeek reports its cache hits under its own name.
      readNumber(usage, 'prompt_cache_hit_tokens'),
    cacheWriteTokens: promptDetails && readNumber(promptDetails, 'cache_write_tokens'),
    reasoningTokens: completionDetails && readNumber(completionDetails, 'reasoning_tokens'),
  };
}
