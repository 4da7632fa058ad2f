import type { Usage } from '../../core/usage.js';
import { isRecord, readArray, readNumber, type JsonRecord } from '../shared/json-fields.js';

/** Converse `usage` → canonical. Its `inputTokens` excludes cache reads and writes; canonical input includes them. */
export function readBedrockUsage(usage: JsonRecord): Usage {
  const cacheReadTokens = readNumber(usage, 'cacheReadInputTokens');
  const cacheWriteTokens = readNumber(usage, 'cacheWriteInputTokens');
  return {
    inputTokens: (readNumber(usage, 'inputTokens') ?? 0) + (cacheReadTokens ?? 0) + (cacheWriteTokens ?? 0),
    outputTokens: readNumber(usage, 'outputTokens') ?? 0,
    cacheReadTokens,
    cacheWriteTokens,
    cacheWrite1hTokens: oneHourWrites(usage),
  };
}

/** `cacheDetails` breaks the writes down by TTL (`[{ttl: "1h", inputTokens}, …]`); the 1-hour ones cost more. */
function oneHourWrites(usage: JsonRecord): number | undefined {
  const detail = readArray(usage, 'cacheDetails')?.find((entry) => isRecord(entry) && entry.ttl === '1h');
  return isRecord(detail) ? readNumber(detail, 'inputTokens') || undefined : undefined;
}
