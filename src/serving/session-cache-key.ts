import type { ChatRequest } from '../providers/spec.js';

/**
 * A request that names no `prompt_cache_key` is keyed by its session (SPEC §14), so the turns of
 * one session reach the OpenAI machine that holds its prefix. The one place a session becomes
 * the key: session affinity (§6) found it, and `serve-request.ts` hands it in here.
 */
export function withSessionCacheKey(request: ChatRequest, session: string | undefined): ChatRequest {
  return request.promptCacheKey !== undefined || session === undefined ? request : { ...request, promptCacheKey: session };
}
