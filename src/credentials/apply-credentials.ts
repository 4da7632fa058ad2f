import type { ConnectionConfig } from '../config/schema.js';
import { PROVIDER_TABLE } from '../providers/provider-table.js';
import type { UpstreamRequest } from '../providers/spec.js';
import type { AccessTokens } from './google-access-tokens.js';
import { signAwsRequest } from './sign-aws-request.js';

/** The connection a request goes to, by name: access tokens are kept per connection. */
export interface CredentialTarget {
  connectionName: string;
  connection: ConnectionConfig;
}

/**
 * Adds the connection's credential to a freshly built request, in its provider's style (the
 * provider table). Applied per attempt, after the adapter (which never sees secrets), so a
 * retried attempt is signed afresh — which matters for SigV4, whose signature covers the time.
 * A Google access token comes from `accessTokens`, which throws `CredentialUnavailable` when it
 * has none.
 */
export async function applyCredentials(upstream: UpstreamRequest, target: CredentialTarget, accessTokens: AccessTokens): Promise<UpstreamRequest> {
  const { connection } = target;
  const style = PROVIDER_TABLE[connection.provider].credential(connection);
  if (style.kind === 'google') {
    upstream.headers.authorization = `Bearer ${await accessTokens.bearerFor(target.connectionName, connection)}`;
    return upstream;
  }
  const { api_key: apiKey, aws_access_key_id: accessKeyId, aws_secret_access_key: secretAccessKey, region } = connection;
  if (style.kind === 'aws' && apiKey === undefined) {
    if (accessKeyId === undefined || secretAccessKey === undefined || region === undefined) return upstream;
    const sessionToken = connection.aws_session_token;
    return signAwsRequest(upstream, { accessKeyId, secretAccessKey, ...(sessionToken === undefined ? {} : { sessionToken }) }, region);
  }
  if (apiKey === undefined) return upstream;
  if (style.kind === 'aws') upstream.headers.authorization = `Bearer ${apiKey}`;
  else upstream.headers[style.header] = style.scheme === undefined ? apiKey : `${style.scheme} ${apiKey}`;
  return upstream;
}
