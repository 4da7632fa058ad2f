import { expect, it } from 'vitest';
import { connectionSchema } from '../config/schema.js';
import { adapterFor } from '../providers/registry.js';
import { drillRequest, RESPONSES_MIN_OUTPUT_TOKENS } from './drill-request.js';

const adapter = (fields: Record<string, unknown>) => adapterFor(connectionSchema.parse(fields));

it('asks for one output token, and for the least the Responses API takes on a target that speaks only it', () => {
  expect(drillRequest(adapter({ provider: 'openai' })).maxOutputTokens).toBe(1);
  expect(drillRequest(adapter({ provider: 'anthropic' })).maxOutputTokens).toBe(1);
  expect(drillRequest(adapter({ provider: 'gemini' })).maxOutputTokens).toBe(1);
  expect(drillRequest(adapter({ provider: 'bedrock', region: 'us-east-1' })).maxOutputTokens).toBe(1);
  expect(drillRequest(adapter({ provider: 'azure-openai', base_url: 'https://example.openai.azure.com' })).maxOutputTokens).toBe(1);
  expect(drillRequest(adapter({ provider: 'mock', dialect: 'openai-responses' })).maxOutputTokens).toBe(RESPONSES_MIN_OUTPUT_TOKENS);
  expect(drillRequest(adapter({ provider: 'mock' }))).toMatchObject({ stream: false, messages: [{ role: 'user' }] });
});
