import { GoogleAccessTokens } from '../../../src/credentials/google-access-tokens.js';
import { describe, expect, it } from 'vitest';
import { applyCredentials } from '../../../src/credentials/apply-credentials.js';
import { AZURE_DEFAULT_API_VERSION, createAzureOpenAiAdapter } from '../../../src/providers/azure-openai/adapter.js';
import { adapterFor } from '../../../src/providers/registry.js';
import type { ChatRequest } from '../../../src/providers/spec.js';
import { readFixture, replaySse, summarizeStream } from '../../support/fixtures.js';
import { parseConfig } from '../../../src/config/parse-config.js';

const TARGET = { baseUrl: 'https://contoso.openai.azure.com', routedModel: 'gpt-4o prod' };
const NOW_MS = Date.parse('2026-03-01T12:00:00Z');
const chat = (stream: boolean): ChatRequest => ({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], stream, includeUsage: false, maxOutputTokens: 50 });

describe('Azure OpenAI adapter', () => {
  const adapter = createAzureOpenAiAdapter();

  it('calls the deployment URL with the api-version, and a Chat Completions body', () => {
    const upstream = adapter.buildRequest(chat(true), TARGET);
    expect(upstream.url).toBe(`https://contoso.openai.azure.com/openai/deployments/gpt-4o%20prod/chat/completions?api-version=${AZURE_DEFAULT_API_VERSION}`);
    const body = JSON.parse(upstream.body) as Record<string, unknown>;
    expect(body).toMatchObject({ messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true }, max_tokens: 50 });
  });

  it('takes the api_version of its connection, and embeddings go to the deployment too', () => {
    const pinned = adapterFor({ provider: 'azure-openai', api_version: '2025-04-01-preview', base_url: TARGET.baseUrl }, 'gpt-4.1');
    expect(pinned.buildRequest(chat(false), TARGET).url).toMatch(/\/chat\/completions\?api-version=2025-04-01-preview$/);
    const embeddings = pinned.embeddings!.buildRequest({ input: ['a'], encodingFormat: 'float' }, { ...TARGET, routedModel: 'embed' });
    expect(embeddings.url).toBe('https://contoso.openai.azure.com/openai/deployments/embed/embeddings?api-version=2025-04-01-preview');
  });

  it('sends the key in the api-key header', async () => {
    const connection = { provider: 'azure-openai' as const, api_key: 'azure-secret', base_url: TARGET.baseUrl, alternate_hosts: [], max_in_flight: 1, optional: false, relay: 'auto' as const };
    const upstream = await applyCredentials(adapter.buildRequest(chat(false), TARGET), { connectionName: 'azure', connection }, new GoogleAccessTokens());
    expect(upstream.headers['api-key']).toBe('azure-secret');
    expect(upstream.headers.authorization).toBeUndefined();
  });

  it('classifies a content-filter refusal as moderation', () => {
    const error = adapter.parseError(400, {}, readFixture('openai', 'errors/400-azure-content-filter.json'), NOW_MS);
    expect(error).toMatchObject({ kind: 'moderation', code: 'content_filter' });
  });

  it('reads Azure streams (which add content-filter results) like OpenAI ones', async () => {
    const sse = [
      'data: {"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{"hate":{"filtered":false,"severity":"safe"}}}]}',
      'data: {"choices":[{"content_filter_results":{},"delta":{"content":"Hel","role":"assistant"},"finish_reason":null,"index":0}],"created":1,"id":"chatcmpl-az","model":"gpt-4o-2024-08-06","object":"chat.completion.chunk"}',
      'data: {"choices":[{"content_filter_results":{"hate":{"filtered":false,"severity":"safe"}},"delta":{"content":"lo"},"finish_reason":"stop","index":0}],"created":1,"id":"chatcmpl-az","model":"gpt-4o-2024-08-06","object":"chat.completion.chunk"}',
      'data: [DONE]',
      '',
    ].join('\n\n');
    const summary = summarizeStream(await replaySse(sse, adapter));
    expect(summary.text).toBe('Hello');
    expect(summary.finish?.reason).toBe('stop');
  });
});

describe('provider-specific connection keys', () => {
  const issues = (connection: string) =>
    parseConfig(`connections:\n  c: ${connection}\n`, {}).issues.map((issue) => `${issue.path}: ${issue.message}`);

  it('accepts each new provider with what it needs', () => {
    expect(issues('{ provider: gemini, api_key: k }')).toEqual([]);
    expect(issues('{ provider: azure-openai, api_key: k, base_url: "https://x.openai.azure.com", api_version: "2024-10-21" }')).toEqual([]);
    expect(issues('{ provider: bedrock, region: us-east-1, api_key: k }')).toEqual([]);
    expect(issues('{ provider: bedrock, region: eu-west-3, aws_access_key_id: A, aws_secret_access_key: S, aws_session_token: T }')).toEqual([]);
  });

  it('names what is missing or misplaced', () => {
    expect(issues('{ provider: bedrock, region: us-east-1 }')).toEqual([expect.stringMatching(/^connections\.c\.api_key: provider bedrock needs api_key .* or aws_access_key_id with aws_secret_access_key/)]);
    expect(issues('{ provider: bedrock, region: us-east-1, aws_access_key_id: A, api_key: k }')).toEqual(['connections.c.aws_secret_access_key: aws_access_key_id and aws_secret_access_key go together']);
    expect(issues('{ provider: bedrock, api_key: k }')).toEqual([expect.stringMatching(/^connections\.c\.region: required for provider bedrock/)]);
    expect(issues('{ provider: bedrock, region: "us east", api_key: k }')).toEqual([expect.stringMatching(/^connections\.c\.region: .*us-east-1/)]);
    expect(issues('{ provider: openai, api_key: k, region: us-east-1 }')).toEqual(['connections.c.region: only bedrock connections take region']);
    expect(issues('{ provider: gemini, api_key: k, api_version: v1 }')).toEqual(['connections.c.api_version: only azure-openai connections take api_version']);
    expect(issues('{ provider: azure-openai, api_key: k }')).toEqual(['connections.c.base_url: required for provider azure-openai']);
  });
});
