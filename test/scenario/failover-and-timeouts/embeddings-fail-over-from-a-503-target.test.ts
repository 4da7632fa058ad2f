import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, fetchRecord } from '../scenario-helpers.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';

let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
routes:
  embed:
    retries: 0
    targets:
      - { connection: mock-openai, model: "embed-primary?status=503" }
      - { connection: mock-openai, model: embed-standby, price: { input_per_mtok: 100, output_per_mtok: 0 } }
  embed-anthropic-first:
    targets:
      - { connection: mock-anthropic, model: claude-mock }
      - { connection: mock-openai, model: embed-after-anthropic }
  chat-only:
    targets:
      - { connection: mock-anthropic, model: claude-mock }
  embed-to-gemini:
    retries: 0
    targets:
      - { connection: mock-openai, model: "embed-openai-down?status=503" }
      - { connection: mock-gemini, model: gemini-embed, price: { input_per_mtok: 150, output_per_mtok: 0 } }
  embed-down:
    retries: 0
    targets:
      - { connection: mock-openai, model: "embed-down-1?status=503" }
      - { connection: mock-openai, model: "embed-down-2?status=500" }
`);
  client = openAiClient(gateway.url);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

/** The mock's vectors straight from the mock, for comparing what the gateway passed on. */
async function mockVectors(model: string, input: string[]): Promise<number[][]> {
  const response = await fetch(`${gateway.mock.url}/v1/embeddings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, input, encoding_format: 'float' }),
  });
  return ((await response.json()) as { data: { embedding: number[] }[] }).data.map((entry) => entry.embedding);
}

describe('POST /v1/embeddings through the attempt loop', () => {
  it('fails over from a 503 target: the official SDK gets the standby vectors, with records and spend', async () => {
    const input = ['first text', 'second text'];
    const { data, response } = await client.embeddings.create({ model: 'embed', input }).withResponse();
    expect(response.headers.get('x-switchyard-served-by')).toBe('mock-openai/embed-standby');
    expect(response.headers.get('x-switchyard-attempts')).toBe('2');
    expect(data.model).toBe('embed-standby');
    expect(data.data.map((entry) => entry.index)).toEqual([0, 1]);
    expect(data.usage.prompt_tokens).toBeGreaterThan(0);
    expect(gateway.mock.attemptsFor('embed-primary')).toHaveLength(1);
    expect(gateway.mock.attemptsFor('embed-standby')).toHaveLength(1);
    // The SDK asked for base64 and decoded it: the same floats the mock serves.
    expect(data.data.map((entry) => entry.embedding)).toEqual(await mockVectors('embed-standby', input));

    const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
    expect(record.operation).toBe('embeddings');
    expect(record.status).toBe('ok');
    expect(record.attempts.map((attempt) => [attempt.kind, attempt.http_status])).toEqual([
      ['server_error', 503],
      ['ok', 200],
    ]);
    expect(record.usage?.input_tokens).toBe(data.usage.prompt_tokens);
    expect(record.usage?.output_tokens).toBe(0);
    expect(record.cost_usd).toBeCloseTo((data.usage.prompt_tokens * 100) / 1e6, 9);
  });

  it('serves the encoding the caller asked for, float included', async () => {
    const response = await fetch(`${gateway.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'embed', input: 'one text', encoding_format: 'float', dimensions: 4 }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { object: string; data: { embedding: number[] }[] };
    expect(body.object).toBe('list');
    expect(body.data[0]!.embedding).toHaveLength(4);
    expect(gateway.mock.attemptsFor('embed-standby')[0]!.body).toMatchObject({ input: ['one text'], dimensions: 4, encoding_format: 'float' });
  });

  it('passes over targets whose provider has no embeddings, without an attempt', async () => {
    const { response } = await client.embeddings.create({ model: 'embed-anthropic-first', input: 'x' }).withResponse();
    expect(response.headers.get('x-switchyard-served-by')).toBe('mock-openai/embed-after-anthropic');
    expect(response.headers.get('x-switchyard-attempts')).toBe('1');
    expect(gateway.mock.attempts.filter((attempt) => attempt.dialect === 'anthropic')).toHaveLength(0);
  });

  it('fails over to a Gemini target (batchEmbedContents), whose unreported usage is estimated and billed', async () => {
    const input = ['alpha text', 'beta text'];
    const { data, response } = await client.embeddings.create({ model: 'embed-to-gemini', input, dimensions: 4 }).withResponse();
    expect(response.headers.get('x-switchyard-served-by')).toBe('mock-gemini/gemini-embed');
    expect(data.data.map((entry) => entry.embedding.length)).toEqual([4, 4]);
    const upstream = gateway.mock.attemptsFor('gemini-embed')[0]!;
    expect(upstream.path).toBe('/v1beta/models/gemini-embed:batchEmbedContents');
    expect(upstream.body).toEqual({
      requests: input.map((text) => ({ model: 'models/gemini-embed', content: { parts: [{ text }] }, outputDimensionality: 4 })),
    });
    // Gemini reports no usage: the gateway counts the input (4 characters a token) and says so.
    expect(data.usage.prompt_tokens).toBe(Math.ceil(input.join('').length / 4));
    const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
    expect(record.attempts[1]!.usage).toMatchObject({ input_tokens: data.usage.prompt_tokens, estimated: true });
    expect(record.cost_usd).toBeCloseTo((data.usage.prompt_tokens * 150) / 1e6, 9);
  });

  it('answers 400 model_not_supported for a route with no embeddings target', async () => {
    const error = await client.embeddings.create({ model: 'chat-only', input: 'x' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('model_not_supported');
    expect(gateway.mock.attempts).toHaveLength(0);
  });

  it('answers 502 listing every attempt when every target fails', async () => {
    const response = await fetch(`${gateway.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'embed-down', input: 'x' }),
    });
    expect(response.status).toBe(502);
    const body = (await response.json()) as { error: { attempts: { kind: string; status: number }[] } };
    expect(body.error.attempts.map((attempt) => attempt.status)).toEqual([503, 500]);
  });

  it.each([
    [{ model: 'embed' }, 'input'],
    [{ model: 'embed', input: [] }, 'input'],
    [{ model: 'embed', input: 'x', encoding_format: 'int8' }, 'encoding_format'],
    [{ input: 'x' }, 'model'],
  ])('rejects a bad body %j with a 400 naming %s', async (body, field) => {
    const response = await fetch(`${gateway.url}/v1/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(response.status).toBe(400);
    const error = ((await response.json()) as { error: { param: string } }).error;
    expect(error.param).toBe(field);
    expect(gateway.mock.attempts).toHaveLength(0);
  });
});
