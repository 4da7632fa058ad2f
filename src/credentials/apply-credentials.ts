import type { ConnectionConfig } from '../config/schema.js';
import type { UpstreamRequest } from '../providers/spec.js';
import { resolveCompatibleHost } from '../providers/openai-compatible/hosts.js';
import type { AccessTokens } from './google-access-tokens.js';
import { signAwsRequest } from './sign-aws-request.js';

/** The connection a request goes to, by name: access tokens are kept per connection. */
export interface CredentialTarget {
  connectionName: string;
  connection: ConnectionConfig;
}

/**
 * Adds the connection's credential to a freshly built request. Applied per attempt, after the
 * adapter (which never sees secrets), so a retried attempt is signed afresh — which matters for
 * SigV4, whose signature covers the time. A Vertex connection's bearer comes from `accessTokens`,
 * which throws `CredentialUnavailable` when it has none.
 */
export async function applyCredentials(upstream: UpstreamRequest, target: CredentialTarget, accessTokens: AccessTokens): Promise<UpstreamRequest> {
  const { connection } = target;
  if (connection.provider === 'vertex') {
    upstream.headers.authorization = `Bearer ${await accessTokens.bearerFor(target.connectionName, connection)}`;
    return upstream;
  }
  const apiKey = connection.api_key;
  if (apiKey !== undefined) {
    const [header, value] = credentialHeader(connection, apiKey);
    upstream.headers[header] = value;
    return upstream;
  }
  const { aws_access_key_id: accessKeyId, aws_secret_access_key: secretAccessKey, region } = connection;
  if (connection.provider === 'bedrock' && accessKeyId !== undefined && secretAccessKey !== undefined && region !== undefined) {
    const sessionToken = connection.aws_session_token;
    return signAwsRequest(upstream, { accessKeyId, secretAccessKey, ...(sessionToken === undefined ? {} : { sessionToken }) }, region);
  }
  return upstream;
}

function credentialHeader(connection: ConnectionConfig, apiKey: string): [string, string] {
  switch (connection.provider) {
    case 'anthropic':
      return ['x-api-key', apiKey];
    case 'gemini':
      return ['x-goog-api-key', apiKey];
    case 'azure-openai':
      return ['api-key', apiKey];
    case 'mock':
      switch (connection.dialect) {
        case 'anthropic':
          return ['x-api-key', apiKey];
        case 'gemini':
          return ['x-goog-api-key', apiKey];
        default:
          return ['authorization', `Bearer ${apiKey}`];
      }
    case 'openai-compatible': {
      const auth = resolveCompatibleHost(connection.base_url ?? '').auth;
      return 'scheme' in auth ? [auth.header, `${auth.scheme} ${apiKey}`] : [auth.header, apiKey];
    }
    default:
      // OpenAI, and Bedrock API keys (bearer tokens).
      return ['authorization', `Bearer ${apiKey}`];
  }
}
