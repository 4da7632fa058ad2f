import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { UpstreamRequest } from '../providers/spec.js';
import { signAwsRequest, type AwsCredentials } from './sign-aws-request.js';

const CREDENTIALS: AwsCredentials = { accessKeyId: 'AKID', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const NOW = new Date('2026-11-29T12:34:56Z');
const BASE_URL = 'https://bedrock-runtime.us-east-1.amazonaws.com';

function converseRequest(overrides: Partial<UpstreamRequest> = {}): UpstreamRequest {
  return {
    url: `${BASE_URL}/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"messages":[{"role":"user","content":[{"text":"Hi"}]}]}',
    ...overrides,
  };
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function hmac(key: string | Buffer, text: string): Buffer {
  return createHmac('sha256', key).update(text, 'utf8').digest();
}

/** SigV4 by the book: canonical request → string to sign → signing key → signature. */
function expectedAuthorization(options: {
  canonicalPath: string;
  host: string;
  body: string;
  sessionToken?: string;
}): string {
  const amzDate = '20261129T123456Z';
  const scope = '20261129/us-east-1/bedrock/aws4_request';
  const payloadHash = sha256Hex(options.body);
  const headers: [string, string][] = [
    ['content-type', 'application/json'],
    ['host', options.host],
    ['x-amz-content-sha256', payloadHash],
    ['x-amz-date', amzDate],
    ...(options.sessionToken === undefined ? [] : [['x-amz-security-token', options.sessionToken] as [string, string]]),
  ];
  const signedHeaders = headers.map(([name]) => name).join(';');
  const canonicalRequest = [
    'POST',
    options.canonicalPath,
    '',
    ...headers.map(([name, value]) => `${name}:${value}`),
    '',
    signedHeaders,
    payloadHash,
  ].join('\n');
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${CREDENTIALS.secretAccessKey}`, '20261129'), 'us-east-1'), 'bedrock'), 'aws4_request');
  const signature = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
  return `AWS4-HMAC-SHA256 Credential=AKID/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
}

function signatureOf(request: UpstreamRequest): string {
  return /Signature=([0-9a-f]{64})$/.exec(request.headers.authorization ?? '')?.[1] ?? 'none';
}

describe('signAwsRequest', () => {
  it('puts the Bedrock scope for the signing day and the signed headers in the authorization', async () => {
    const signed = await signAwsRequest(converseRequest(), CREDENTIALS, 'us-east-1', NOW);
    expect(signed.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKID\/20261129\/us-east-1\/bedrock\/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$/,
    );
    expect(signed.headers['x-amz-date']).toBe('20261129T123456Z');
    expect(signed.headers['x-amz-content-sha256']).toBe(sha256Hex(converseRequest().body));
    expect(signed.headers).not.toHaveProperty('x-amz-security-token');
  });

  it.each([
    {
      name: 'a model id with a colon, encoded again in the canonical path',
      url: `${BASE_URL}/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse`,
      canonicalPath: '/model/anthropic.claude-3-haiku-20240307-v1%253A0/converse',
      host: 'bedrock-runtime.us-east-1.amazonaws.com',
    },
    {
      name: 'an inference-profile ARN, whose slash stays encoded',
      url: `${BASE_URL}/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.anthropic.claude-3-haiku-20240307-v1%3A0/converse-stream`,
      canonicalPath:
        '/model/arn%253Aaws%253Abedrock%253Aus-east-1%253A123456789012%253Ainference-profile%252Fus.anthropic.claude-3-haiku-20240307-v1%253A0/converse-stream',
      host: 'bedrock-runtime.us-east-1.amazonaws.com',
    },
    {
      name: 'a host with a port, and temporary credentials',
      url: 'http://127.0.0.1:4010/model/bedrock-mock%3Fstatus%3D503/converse',
      canonicalPath: '/model/bedrock-mock%253Fstatus%253D503/converse',
      host: '127.0.0.1:4010',
      sessionToken: 'FQoGZXIvYXdzEJr//session+token=',
    },
  ])('matches a signature computed step by step for $name', async ({ url, canonicalPath, host, sessionToken }) => {
    const request = converseRequest({ url });
    const signed = await signAwsRequest(request, { ...CREDENTIALS, sessionToken }, 'us-east-1', NOW);
    expect(signed.headers.authorization).toBe(expectedAuthorization({ canonicalPath, host, body: request.body, sessionToken }));
  });

  it('adds the session token of temporary credentials, and signs it', async () => {
    const signed = await signAwsRequest(converseRequest(), { ...CREDENTIALS, sessionToken: 'TOKEN' }, 'us-east-1', NOW);
    expect(signed.headers['x-amz-security-token']).toBe('TOKEN');
    expect(signed.headers.authorization).toContain('SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token,');
  });

  it('gives a different signature for a different body, time or region', async () => {
    const base = signatureOf(await signAwsRequest(converseRequest(), CREDENTIALS, 'us-east-1', NOW));
    const otherBody = await signAwsRequest(converseRequest({ body: '{"messages":[]}' }), CREDENTIALS, 'us-east-1', NOW);
    const later = await signAwsRequest(converseRequest(), CREDENTIALS, 'us-east-1', new Date(NOW.getTime() + 1000));
    const otherRegion = await signAwsRequest(converseRequest(), CREDENTIALS, 'eu-west-1', NOW);
    expect(new Set([base, signatureOf(otherBody), signatureOf(later), signatureOf(otherRegion)]).size).toBe(4);
    expect(later.headers['x-amz-date']).toBe('20261129T123457Z');
    expect(otherRegion.headers.authorization).toContain('/eu-west-1/bedrock/aws4_request');
  });

  it('leaves the request it was given untouched, and signs a signed request afresh', async () => {
    const request = converseRequest();
    const first = await signAwsRequest(request, { ...CREDENTIALS, sessionToken: 'OLD' }, 'us-east-1', NOW);
    expect(request.headers).toEqual({ 'content-type': 'application/json' });
    expect(first.url).toBe(request.url);
    expect(first.body).toBe(request.body);

    const retried = await signAwsRequest({ ...first, body: '{"messages":[]}' }, CREDENTIALS, 'us-east-1', NOW);
    const fresh = await signAwsRequest(converseRequest({ body: '{"messages":[]}' }), CREDENTIALS, 'us-east-1', NOW);
    expect(retried.headers).toEqual(fresh.headers);
  });
});
