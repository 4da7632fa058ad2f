import type { ConnectionConfig } from '../config/schema.js';
import type { UpstreamRequest } from '../providers/spec.js';
import { resolveCompatibleHost } from '../providers/openai-compatible/hosts.js';

/**
 * Adds the connection's credential to a freshly built request. Applied per attempt, after the
 * adapter (which never sees secrets), so a retried attempt is signed afresh.
 */
export function applyCredentials(upstream: UpstreamRequest, connection: ConnectionConfig): UpstreamRequest {
  const apiKey = connection.api_key;
  if (apiKey === undefined) return upstream;
  const [header, value] = credentialHeader(connection, apiKey);
  upstream.headers[header] = value;
  return upstream;
}

function credentialHeader(connection: ConnectionConfig, apiKey: string): [string, string] {
  switch (connection.provider) {
    case 'anthropic':
      return ['x-api-key', apiKey];
    case 'mock':
      return connection.dialect === 'anthropic' ? ['x-api-key', apiKey] : ['authorization', `Bearer ${apiKey}`];
    case 'openai-compatible': {
      const auth = resolveCompatibleHost(connection.base_url ?? '').auth;
      return 'scheme' in auth ? [auth.header, `${auth.scheme} ${apiKey}`] : [auth.header, apiKey];
    }
    default:
      return ['authorization', `Bearer ${apiKey}`];
  }
}
