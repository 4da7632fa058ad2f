import type { Usage } from '../../core/usage.js';
import { readNumber, readRecord, type JsonRecord } from '../shared/json-fields.js';

/** Anthropic's usage counts under canonical names, only those the provider sent. */
export interface AnthropicUsageCounts {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  cacheWrite1hTokens?: number;
  reasoningTokens?: number;
}

export function readAnthropicUsageCounts(usage: JsonRecord): AnthropicUsageCounts {
  const outputDetails = readRecord(usage, 'output_tokens_details');
  const cacheCreation = readRecord(usage, 'cache_creation');
  const entries: [keyof AnthropicUsageCounts, number | undefined][] = [
    ['inputTokens', readNumber(usage, 'input_tokens')],
    ['outputTokens', readNumber(usage, 'output_tokens')],
    ['cacheReadTokens', readNumber(usage, 'cache_read_input_tokens')],
    ['cacheWriteTokens', readNumber(usage, 'cache_creation_input_tokens')],
    // The writes by TTL: a 1-hour write costs 2× input, a 5-minute one 1.25×.
    ['cacheWrite1hTokens', cacheCreation && readNumber(cacheCreation, 'ephemeral_1h_input_tokens')],
    ['reasoningTokens', outputDetails && readNumber(outputDetails, 'thinking_tokens')],
  ];
  // Absent counts stay absent, so a later partial report can be merged over an earlier one.
  return Object.fromEntries(entries.filter(([, value]) => value !== undefined));
}

/** Anthropic's `input_tokens` excludes cache reads and writes; canonical input includes them. */
export function toCanonicalUsage(counts: AnthropicUsageCounts): Usage {
  const { inputTokens = 0, cacheReadTokens, cacheWriteTokens } = counts;
  return {
    inputTokens: inputTokens + (cacheReadTokens ?? 0) + (cacheWriteTokens ?? 0),
    outputTokens: counts.outputTokens ?? 0,
    cacheReadTokens,
    cacheWriteTokens,
    cacheWrite1hTokens: counts.cacheWrite1hTokens || undefined,
    reasoningTokens: counts.reasoningTokens,
  };
}
