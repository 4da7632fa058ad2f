import type { ProviderAdapter } from '../spec.js';
import { OPENAI_TOOL_CALL_IDS, type ToolCallIdRule } from '../shared/tool-call-ids.js';
import { buildOpenAiRequest, relayOpenAiRequest } from './build-request.js';
import { openAiEmbeddings } from './embeddings.js';
import { parseOpenAiError } from './parse-error.js';
import { parseOpenAiResponse } from './parse-response.js';
import { OpenAiStreamParser } from './parse-stream.js';

export interface OpenAiAdapterOptions {
  /** Top-level request fields the target rejects (see `openai-compatible/hosts.ts`). */
  dropParams?: readonly string[];
  /** The tool-call ids the target accepts (OpenAI's rule unless the host has its own). */
  toolCallIds?: ToolCallIdRule;
  /** Whether the target takes `prompt_cache_key` (OpenAI and Azure OpenAI; other hosts may refuse it). */
  promptCacheKey?: boolean;
}

/** The Chat Completions adapter, shared by OpenAI itself and every OpenAI-compatible host. */
export function createOpenAiAdapter(options: OpenAiAdapterOptions = {}): ProviderAdapter {
  const dropParams = options.dropParams ?? [];
  const toolCallIds = options.toolCallIds ?? OPENAI_TOOL_CALL_IDS;
  const promptCacheKey = options.promptCacheKey === true;
  return {
    dialect: 'openai',
    framing: 'sse',
    buildRequest: (request, target) => buildOpenAiRequest(request, target, { dropParams, toolCallIds, promptCacheKey }),
    relay: (body, request, target) => relayOpenAiRequest(body, request, target, { dropParams, toolCallIds, promptCacheKey }),
    parseResponse: parseOpenAiResponse,
    createStreamParser: () => new OpenAiStreamParser(),
    parseError: parseOpenAiError,
    embeddings: openAiEmbeddings,
  };
}

/**
 * api.openai.com. Its reasoning models reject the deprecated `max_tokens` while every model
 * accepts `max_completion_tokens`, so dropping `max_tokens` makes the output limit always go
 * under the newer name (see `outputLimitParam`).
 */
export const openAiAdapter: ProviderAdapter = createOpenAiAdapter({ dropParams: ['max_tokens'], promptCacheKey: true });
