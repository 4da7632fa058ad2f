import type { ConnectionConfig, ProviderName } from '../config/schema.js';
import { anthropicAdapter } from './anthropic/adapter.js';
import { openAiAdapter } from './openai/adapter.js';
import { createCompatibleAdapter } from './openai-compatible/adapter.js';
import type { ProviderAdapter } from './spec.js';

/** Each provider's public endpoint, in its own SDK's convention (SPEC §3). */
const DEFAULT_BASE_URLS: Partial<Record<ProviderName, string>> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
};

/** Providers this build can call; config naming another is rejected at load. */
export const SUPPORTED_PROVIDERS: ReadonlySet<ProviderName> = new Set(['openai', 'openai-compatible', 'anthropic', 'mock']);

const compatibleAdapters = new Map<string, ProviderAdapter>();

export function adapterFor(connection: ConnectionConfig): ProviderAdapter {
  switch (connection.provider) {
    case 'anthropic':
      return anthropicAdapter;
    case 'mock':
      return connection.dialect === 'anthropic' ? anthropicAdapter : openAiAdapter;
    case 'openai-compatible': {
      const baseUrl = connection.base_url ?? '';
      let adapter = compatibleAdapters.get(baseUrl);
      if (!adapter) {
        adapter = createCompatibleAdapter(baseUrl);
        compatibleAdapters.set(baseUrl, adapter);
      }
      return adapter;
    }
    default:
      return openAiAdapter;
  }
}

/** The base URL to call; a mock connection without one uses the gateway's in-process mock. */
export function baseUrlFor(connection: ConnectionConfig, inProcessMockUrl: string | undefined): string {
  if (connection.base_url !== undefined) return connection.base_url;
  if (connection.provider === 'mock') {
    if (inProcessMockUrl === undefined) throw new Error('the in-process mock provider is not running');
    return connection.dialect === 'anthropic' ? inProcessMockUrl : `${inProcessMockUrl}/v1`;
  }
  const url = DEFAULT_BASE_URLS[connection.provider];
  if (url === undefined) throw new Error(`provider ${connection.provider} has no default base_url`);
  return url;
}
