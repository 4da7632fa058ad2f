import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { applyCredentials } from '../../src/credentials/apply-credentials.js';
import { GoogleAccessTokens } from '../../src/credentials/google-access-tokens.js';
import { startMockProvider, type MockProvider } from '../../src/mock/mock-provider.js';
import { PROVIDER_TABLE, PROVIDERS, type ConnectionFacts } from '../../src/providers/provider-table.js';
import type { ChatRequest } from '../../src/providers/spec.js';
import { connectionSchema } from '../../src/config/schema.js';
import { serviceAccountKeyJson } from '../../src/mock/service-account-key.js';

/**
 * A provider is complete when the table describes it and the rest of the project knows it. A row
 * added to providers/provider-table.ts fails here until it has a sample connection below, docs,
 * contract tests, and — where the table says the mock serves it — a mock that answers its wire.
 */
interface Sample {
  connection: ConnectionFacts;
  model: string;
  embeddingModel?: string;
  /** Other settings of the provider, when a capability is one setting's (the mock's dialects). */
  otherConnections?: ConnectionFacts[];
}

/** The mock's root, once started: a Vertex key's tokens are exchanged there. */
let mockUrl = '';

const SAMPLES: Readonly<Record<string, Sample>> = {
  openai: { connection: { provider: 'openai', api_key: 'sk-test' }, model: 'gpt-4.1', embeddingModel: 'text-embedding-3-small' },
  anthropic: { connection: { provider: 'anthropic', api_key: 'sk-ant-test' }, model: 'claude-sonnet-4-5' },
  gemini: { connection: { provider: 'gemini', api_key: 'AIza-test' }, model: 'gemini-2.5-flash', embeddingModel: 'gemini-embedding-001' },
  bedrock: { connection: { provider: 'bedrock', region: 'us-east-1', api_key: 'bedrock-test' }, model: 'anthropic.claude-sonnet-4-5-20250929-v1:0' },
  'azure-openai': { connection: { provider: 'azure-openai', base_url: 'https://example.openai.azure.com', api_key: 'azure-test' }, model: 'gpt-4.1', embeddingModel: 'text-embedding-3-small' },
  'openai-compatible': { connection: { provider: 'openai-compatible', base_url: 'https://api.groq.com/openai/v1', api_key: 'gsk-test' }, model: 'llama-3.3-70b-versatile', embeddingModel: 'nomic-embed-text' },
  vertex: {
    connection: {
      provider: 'vertex',
      project: 'switchyard-test',
      location: 'us-east5',
      get credentials_json() {
        return serviceAccountKeyJson(`${mockUrl}/token`);
      },
    },
    model: 'claude-sonnet-4-5@20250929',
    embeddingModel: 'text-embedding-005',
    otherConnections: [],
  },
  mock: { connection: { provider: 'mock' }, model: 'gpt-mock', otherConnections: [{ provider: 'mock', dialect: 'openai-responses' }] },
};

const providersDoc = readFileSync(new URL('../../docs/providers.md', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const providerKeyRow = readme.split('\n').find((line) => line.startsWith('| `connections.*.provider` |')) ?? '';

const request: ChatRequest = { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], stream: false, includeUsage: false, maxOutputTokens: 16 };

let mock: MockProvider;
const accessTokens = new GoogleAccessTokens();
beforeAll(async () => {
  mock = await startMockProvider();
  mockUrl = mock.url;
});
afterAll(async () => {
  accessTokens.close();
  await mock.close();
});

for (const provider of PROVIDERS) {
  it(`${provider}: a sample connection, a row in docs/providers.md and the README's config table, and contract tests`, () => {
    const sample = SAMPLES[provider];
    expect(sample, `add a sample connection of ${provider} to this test`).toBeDefined();
    expect(providersDoc).toContain(`| \`${provider}\` |`);
    expect(providerKeyRow).toContain(`\`${provider}\``);
    if (provider !== 'mock') expect(existsSync(new URL(`../contract/${provider}/`, import.meta.url)), `test/contract/${provider}/`).toBe(true);
  });

  it(`${provider}: its capabilities are what its adapter does`, () => {
    const entry = PROVIDER_TABLE[provider];
    const { connection, model, embeddingModel, otherConnections = [] } = SAMPLES[provider]!;
    const adapters = [connection, ...otherConnections].map((each) => entry.adapter(each, model));
    expect(entry.tracingName).not.toBe('');
    expect(entry.adapter(connection, embeddingModel ?? model).embeddings !== undefined).toBe(entry.capabilities.embeddings);
    expect(adapters.some((adapter) => adapter.responses !== undefined || adapter.dialect === 'openai-responses')).toBe(entry.capabilities.responsesApi);
  });

  if (PROVIDER_TABLE[provider].mockPath === null) continue;
  it(`${provider}: the mock answers its wire at the table's mock path, with the credential in the table's style`, async () => {
    const { connection, model } = SAMPLES[provider]!;
    const entry = PROVIDER_TABLE[provider];
    const adapter = entry.adapter(connection, model);
    const baseUrl = `${mock.url}${entry.mockPath}${entry.pathBelowBase?.(connection) ?? ''}`;
    const unsigned = adapter.buildRequest(request, { baseUrl, routedModel: model });
    const upstream = await applyCredentials(unsigned, { connectionName: provider, connection: connectionSchema.parse({ ...connection }) }, accessTokens);
    const response = await fetch(upstream.url, { method: 'POST', headers: upstream.headers, body: upstream.body, signal: AbortSignal.timeout(10_000) });
    const body = await response.text();
    expect(response.status, body).toBe(200);
    expect(adapter.parseResponse(JSON.parse(body)).text).not.toBe('');
  });
}
