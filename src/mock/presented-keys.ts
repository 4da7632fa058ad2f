import type { IncomingMessage } from 'node:http';

/**
 * Every credential a request presents, as each dialect's clients send it: a bearer token
 * (OpenAI, Bedrock API keys), `x-api-key` (Anthropic), `api-key` (Azure), `x-goog-api-key` or
 * `?key=` (Gemini), and the access key id of a SigV4 signature (Bedrock with IAM credentials).
 */
export function presentedKeys(request: IncomingMessage): string[] {
  const keys: string[] = [];
  const authorization = headerValue(request.headers.authorization);
  if (authorization !== undefined) {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    if (bearer !== undefined) keys.push(bearer);
    const accessKeyId = /\bCredential=([^/,\s]+)\//.exec(authorization)?.[1];
    if (accessKeyId !== undefined) keys.push(accessKeyId);
  }
  for (const name of ['x-api-key', 'api-key', 'x-goog-api-key']) {
    const value = headerValue(request.headers[name]);
    if (value !== undefined) keys.push(value);
  }
  const queryStart = request.url?.indexOf('?') ?? -1;
  if (queryStart !== -1) {
    const key = new URLSearchParams(request.url!.slice(queryStart + 1)).get('key');
    if (key !== null) keys.push(key);
  }
  return keys;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
