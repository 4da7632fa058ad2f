import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { UpstreamRequest } from '../providers/spec.js';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** Present for temporary credentials (STS, instance roles). */
  sessionToken?: string;
}

/** Headers a signature adds; a request signed before is stripped of them and signed afresh. */
const SIGNATURE_HEADERS = ['authorization', 'x-amz-date', 'x-amz-content-sha256', 'x-amz-security-token'];

/**
 * Signs a Bedrock request with AWS Signature Version 4 (service `bedrock`). Called per attempt,
 * so every retry carries a fresh date and signature. The path is signed as sent — model ids are
 * already URL-encoded there, and SigV4 encodes each segment once more for the canonical request.
 * `host` is signed as `url.host`, the Host header the transport sends, and not returned.
 */
export async function signAwsRequest(
  upstream: UpstreamRequest,
  credentials: AwsCredentials,
  region: string,
  now: Date = new Date(),
): Promise<UpstreamRequest> {
  const url = new URL(upstream.url);
  const headers = Object.fromEntries(
    Object.entries(upstream.headers).filter(([name]) => !SIGNATURE_HEADERS.includes(name.toLowerCase())),
  );
  const signer = new SignatureV4({
    service: 'bedrock',
    region,
    credentials,
    sha256: Hash.bind(null, 'sha256'),
  });
  const signed = await signer.sign(
    {
      method: upstream.method,
      protocol: url.protocol,
      hostname: url.hostname,
      path: url.pathname,
      headers: { ...headers, host: url.host },
      body: upstream.body,
    },
    { signingDate: now },
  );
  const { host: _host, ...signedHeaders } = signed.headers;
  return { ...upstream, headers: signedHeaders };
}
