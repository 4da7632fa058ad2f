import { expect, it } from 'vitest';
import { configSchema, connectionSchema } from '../config/schema.js';
import { adapterFor } from '../providers/registry.js';
import { resolveRoute } from '../routing/resolve-route.js';
import { PROBE_EMBEDDINGS_REQUEST } from '../health/probe-request.js';
import { drillRequest, RESPONSES_MIN_OUTPUT_TOKENS } from './drill-request.js';

const adapter = (fields: Record<string, unknown>) => adapterFor(connectionSchema.parse(fields), 'gpt-4.1');

const config = configSchema.parse({
  connections: { east: { provider: 'mock' } },
  routes: {
    chat: { targets: [{ connection: 'east', model: 'gpt-4.1' }] },
    vectors: { targets: [{ connection: 'east', model: 'text-embedding-3-small' }, { connection: 'east', model: 'gemini-embedding-001' }] },
    mixed: { targets: [{ connection: 'east', model: 'text-embedding-3-small' }, { connection: 'east', model: 'gpt-4.1' }] },
  },
});
const chat = resolveRoute(config, 'chat');

it('asks for one output token, and for the least the Responses API takes on a target that speaks only it', () => {
  expect(drillRequest(chat, adapter({ provider: 'openai' }))).toMatchObject({ maxOutputTokens: 1 });
  expect(drillRequest(chat, adapter({ provider: 'anthropic' }))).toMatchObject({ maxOutputTokens: 1 });
  expect(drillRequest(chat, adapter({ provider: 'gemini' }))).toMatchObject({ maxOutputTokens: 1 });
  expect(drillRequest(chat, adapter({ provider: 'bedrock', region: 'us-east-1' }))).toMatchObject({ maxOutputTokens: 1 });
  expect(drillRequest(chat, adapter({ provider: 'azure-openai', base_url: 'https://example.openai.azure.com' }))).toMatchObject({ maxOutputTokens: 1 });
  expect(drillRequest(chat, adapter({ provider: 'mock', dialect: 'openai-responses' }))).toMatchObject({ maxOutputTokens: RESPONSES_MIN_OUTPUT_TOKENS });
  expect(drillRequest(chat, adapter({ provider: 'mock' }))).toMatchObject({ stream: false, messages: [{ role: 'user' }] });
});

it('drills a route of embedding models with one word to embed, and a route that mixes in a chat model with a chat', () => {
  expect(drillRequest(resolveRoute(config, 'vectors'), adapter({ provider: 'openai' }))).toBe(PROBE_EMBEDDINGS_REQUEST);
  expect(drillRequest(resolveRoute(config, 'mixed'), adapter({ provider: 'openai' }))).toMatchObject({ maxOutputTokens: 1 });
});
