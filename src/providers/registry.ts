import { mockPathOf, PROVIDER_TABLE, type ConnectionFacts } from './provider-table.js';
import type { ProviderAdapter } from './spec.js';

/** The adapter for a target: its connection's provider, and for some providers its model. */
export function adapterFor(connection: ConnectionFacts, model: string): ProviderAdapter {
  return PROVIDER_TABLE[connection.provider].adapter(connection, model);
}

/** The base URL to call; a mock connection without one uses the gateway's in-process mock. */
export function baseUrlFor(connection: ConnectionFacts, inProcessMockUrl: string | undefined): string {
  const below = PROVIDER_TABLE[connection.provider].pathBelowBase?.(connection);
  const base = writtenOrDefaultBaseUrl(connection, inProcessMockUrl);
  return below === undefined ? base : `${base.replace(/\/+$/, '')}${below}`;
}

function writtenOrDefaultBaseUrl(connection: ConnectionFacts, inProcessMockUrl: string | undefined): string {
  if (connection.base_url !== undefined) return connection.base_url;
  if (connection.provider === 'mock') {
    if (inProcessMockUrl === undefined) throw new Error('the in-process mock provider is not running');
    return `${inProcessMockUrl}${mockPathOf(connection.dialect)}`;
  }
  const url = PROVIDER_TABLE[connection.provider].defaultBaseUrl(connection);
  if (url === undefined) throw new Error(`provider ${connection.provider} has no default base_url`);
  return url;
}
