import { createOpenAiAdapter } from '../openai/adapter.js';
import type { ProviderAdapter } from '../spec.js';
import { resolveCompatibleHost } from './hosts.js';

/** The Chat Completions adapter with the quirks of the host behind `baseUrl`. */
export function createCompatibleAdapter(baseUrl: string): ProviderAdapter {
  const host = resolveCompatibleHost(baseUrl);
  return createOpenAiAdapter({ dropParams: host.dropParams, ...(host.toolCallIds ? { toolCallIds: host.toolCallIds } : {}) });
}
