import type { ConnectionConfig } from '../config/schema.js';
import { PROVIDER_TABLE } from '../providers/provider-table.js';
import type { UpstreamRequest } from '../providers/spec.js';
import { signAwsRequest } from './sign-aws-request.js';

/**
 * Adds the connection's credential to a freshly built request, in its provider's style (the
 * provider table). Applied per attempt, after the adapter (which never sees secrets), so a
 * retried attempt is signed afresh — which matters for SigV4, whose signature covers the time.
 */
export async function applyCredentials(upstream: UpstreamRequest, connection: ConnectionConfig): Promise<UpstreamRequest> {
  const style = PROVIDER_TABLE[connection.provider].credential(connection);
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
