import type { IncomingMessage } from 'node:http';
import { expect, it } from 'vitest';
import { presentedKeys } from './presented-keys.js';

function request(headers: Record<string, string>, url = '/v1/chat/completions'): IncomingMessage {
  return { headers, url } as unknown as IncomingMessage;
}

it('reads a bearer token, the dialects’ key headers and a Gemini key in the query', () => {
  expect(presentedKeys(request({ authorization: 'Bearer sk-one' }))).toEqual(['sk-one']);
  expect(presentedKeys(request({ 'x-api-key': 'sk-ant' }))).toEqual(['sk-ant']);
  expect(presentedKeys(request({ 'api-key': 'azure-key' }))).toEqual(['azure-key']);
  expect(presentedKeys(request({ 'x-goog-api-key': 'goog' }))).toEqual(['goog']);
  expect(presentedKeys(request({}, '/v1beta/models/g:generateContent?key=in-query'))).toEqual(['in-query']);
  expect(presentedKeys(request({}))).toEqual([]);
});

it('reads the access key id of a SigV4 signature', () => {
  const authorization = 'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/us-east-1/bedrock/aws4_request, SignedHeaders=host, Signature=abc';
  expect(presentedKeys(request({ authorization }))).toEqual(['AKIDEXAMPLE']);
});
