import type { UpstreamDialect } from '../providers/spec.js';
import { countInputTokens } from './answer.js';
import { cacheablePrompt } from './cacheable-prompt.js';
import type { CacheUsage } from './directives.js';
import { MIN_CACHED_PROMPT_TOKENS, type PromptCache } from './prompt-cache.js';

/** The prompt tokens an answer reports: the uncached ones, and those read from and written to the cache. */
export interface PromptUsage {
  inputTokens: number;
  cache: CacheUsage;
}

/**
 * The request's counted input tokens, split by the prompt cache into reads, writes and the rest;
 * the `cached=` / `cache_write=` directives' tokens come on top. A prompt too short to be cached
 * is not hashed at all, so the bench's small requests pay nothing for the cache.
 */
export function promptUsage(options: {
  dialect: UpstreamDialect;
  body: Record<string, unknown>;
  directed: CacheUsage;
  promptCache: PromptCache;
  /** The cache's scope (the key presented and the model), read only for a prompt long enough to be cached. */
  scope: () => string;
  nowMs: number;
}): PromptUsage {
  const { directed } = options;
  const counted = countInputTokens(options.body);
  if (counted < MIN_CACHED_PROMPT_TOKENS) return { inputTokens: counted, cache: directed };
  const found = options.promptCache.use(options.scope(), cacheablePrompt(options.dialect, options.body), options.nowMs);
  return {
    inputTokens: counted - found.readTokens - found.writeTokens,
    cache: {
      readTokens: directed.readTokens + found.readTokens,
      writeTokens: directed.writeTokens + found.writeTokens,
      writeTtl: found.writeTokens > 0 ? found.writeTtl : directed.writeTtl,
    },
  };
}
