import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord, hello } from '../scenario-helpers.js';

/** 40 prompt tokens read from the cache, 8 written to the 1-hour cache (docs/mock.md, `cached`, `cache_write`, `cache_ttl`). */
const MODEL = 'gpt-mock?cached=40&cache_write=8&cache_ttl=1h';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}  mock-responses: { provider: mock, dialect: openai-responses }
`);
});
afterAll(() => gateway.close());

// OpenAI and Gemini report cache reads only (writing their cache costs nothing extra);
// Anthropic and Bedrock report writes too, and which of them went to the 1-hour cache.
describe.each([
  ['mock-openai', { cache_read_tokens: 40, reasoning_tokens: 0 }],
  ['mock-responses', { cache_read_tokens: 40, reasoning_tokens: 0 }],
  ['mock-gemini', { cache_read_tokens: 40 }],
  ['mock-anthropic', { cache_read_tokens: 40, cache_write_tokens: 8, cache_write_1h_tokens: 8 }],
  ['mock-bedrock', { cache_read_tokens: 40, cache_write_tokens: 8, cache_write_1h_tokens: 8 }],
])('cache usage from %s', (connection, cacheUsage) => {
  it.each([false, true])('is on the record, counted in the input tokens (streamed: %s)', async (stream) => {
    const response = await postChat(gateway.url, { model: `${connection}/${MODEL}`, messages: hello, stream });
    expect(response.status).toBe(200);
    await response.text();
    const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
    // "hi": 1 token counted from the text, and the 48 cached ones with it.
    expect(record.usage).toEqual({ input_tokens: 49, output_tokens: 8, ...cacheUsage });
    expect(record.attempts[0]!.usage).toEqual(record.usage);
  });
});
