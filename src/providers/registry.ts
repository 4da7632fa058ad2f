import type { ConnectionConfig, ProviderName } from '../config/schema.js';
import { anthropicAdapter } from './anthropic/adapter.js';
import { AZURE_DEFAULT_API_VERSION, createAzureOpenAiAdapter } from './azure-openai/adapter.js';
import { bedrockAdapter } from './bedrock/adapter.js';
import { geminiAdapter } from './gemini/adapter.js';
import { createOpenAiAdapter, openAiAdapter } from './openai/adapter.js';
import { createCompatibleAdapter } from './openai-compatible/adapter.js';
import { createOpenAiResponsesAdapter } from './openai-responses/adapter.js';
import type { UpstreamDialect, ProviderAdapter } from './spec.js';
import { vertexAdapterFor } from './vertex/adapter.js';

/** Each provider's public endpoint, in its own SDK's convention (README.md, configuration). */
const DEFAULT_BASE_URLS: Partial<Record<ProviderName, string>> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  gemini: 'https://generativelanguage.googleapis.com/v1beta',
};

const ADAPTERS_BY_DIALECT: Readonly<Record<UpstreamDialect, ProviderAdapter>> = {
  // The mock's OpenAI wire, as a generic host's: api.openai.com's rules without its `prompt_cache_key`.
  openai: createOpenAiAdapter({ dropParams: ['max_tokens'] }),
  // The mock speaking the Responses API, to every caller.
  'openai-responses': createOpenAiResponsesAdapter({ origin: 'mock', path: '/responses', promptCacheKey: false }),
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
  bedrock: bedrockAdapter,
};

/** api.openai.com: Chat Completions, and its own Responses API for Responses callers. */
const openAiWithResponses: ProviderAdapter = {
  ...openAiAdapter,
  responses: createOpenAiResponsesAdapter({ origin: 'openai', path: '/responses', promptCacheKey: true }),
};

/** Adapters that depend on a connection setting, made once per distinct setting. */
const configuredAdapters = new Map<string, ProviderAdapter>();

function configured(key: string, create: () => ProviderAdapter): ProviderAdapter {
  let adapter = configuredAdapters.get(key);
  if (!adapter) {
    adapter = create();
    configuredAdapters.set(key, adapter);
  }
  return adapter;
}

/** `model` is the target's: Vertex serves Claude and Gemini in their own wire formats. */
export function adapterFor(connection: ConnectionConfig, model = ''): ProviderAdapter {
  switch (connection.provider) {
    case 'openai':
      return openAiWithResponses;
    case 'anthropic':
    case 'gemini':
    case 'bedrock':
      return ADAPTERS_BY_DIALECT[connection.provider];
    case 'vertex':
      return vertexAdapterFor(model);
    case 'mock':
      return ADAPTERS_BY_DIALECT[connection.dialect ?? 'openai'];
    case 'openai-compatible': {
      const baseUrl = connection.base_url ?? '';
      return configured(`compatible ${baseUrl}`, () => createCompatibleAdapter(baseUrl));
    }
    case 'azure-openai': {
      const apiVersion = connection.api_version ?? AZURE_DEFAULT_API_VERSION;
      return configured(`azure ${apiVersion}`, () => createAzureOpenAiAdapter(apiVersion));
    }
  }
}

/** Where the in-process mock serves each wire format, relative to its root (the SDKs' own conventions). */
const MOCK_PATHS: Readonly<Record<UpstreamDialect, string>> = { openai: '/v1', 'openai-responses': '/v1', anthropic: '', gemini: '/v1beta', bedrock: '' };

/** The base URL to call; a mock connection without one uses the gateway's in-process mock. */
export function baseUrlFor(connection: ConnectionConfig, inProcessMockUrl: string | undefined): string {
  if (connection.provider === 'vertex') return vertexPrefix(connection);
  if (connection.base_url !== undefined) return connection.base_url;
  if (connection.provider === 'mock') {
    if (inProcessMockUrl === undefined) throw new Error('the in-process mock provider is not running');
    return `${inProcessMockUrl}${MOCK_PATHS[connection.dialect ?? 'openai']}`;
  }
  if (connection.provider === 'bedrock' && connection.region !== undefined) return `https://bedrock-runtime.${connection.region}.amazonaws.com`;
  const url = DEFAULT_BASE_URLS[connection.provider];
  if (url === undefined) throw new Error(`provider ${connection.provider} has no default base_url`);
  return url;
}

/**
 * `{base_url}/projects/{project}/locations/{location}`, which Vertex's adapters extend with the
 * publisher and model. The default host is the location's own, or the global one.
 */
function vertexPrefix(connection: ConnectionConfig): string {
  const { project, location } = connection;
  if (project === undefined || location === undefined) throw new Error('a vertex connection needs project and location');
  const base = connection.base_url ?? (location === 'global' ? 'https://aiplatform.googleapis.com/v1' : `https://${location}-aiplatform.googleapis.com/v1`);
  return `${base.replace(/\/+$/, '')}/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(location)}`;
}
