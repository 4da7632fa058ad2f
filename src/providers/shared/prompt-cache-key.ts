import type { ChatRequest } from '../spec.js';
import { fitToolCallId, type ToolCallIdRule } from './tool-call-ids.js';

/**
 * OpenAI and Azure OpenAI refuse a `prompt_cache_key` longer than 64 characters (400
 * `string_above_max_length`); a longer key, which a session id easily is, goes as a digest of
 * itself, the same for every turn of the session.
 */
const PROMPT_CACHE_KEYS: ToolCallIdRule = { pattern: /^[^]{1,64}$/, prefix: 'pck_', length: 64 };

/** The `prompt_cache_key` to send a target that takes one; undefined when the request has none. */
export function promptCacheKeyOf(request: ChatRequest): string | undefined {
  return request.promptCacheKey === undefined ? undefined : fitToolCallId(request.promptCacheKey, PROMPT_CACHE_KEYS);
}
