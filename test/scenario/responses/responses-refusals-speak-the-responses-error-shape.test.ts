import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';
import { createKey, keysAuth } from '../../support/virtual-keys.js';

const ADMIN_TOKEN = 'responses-errors-admin';
let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  gateway = await startGateway(`
${keysAuth(ADMIN_TOKEN)}
${MOCK_CONNECTIONS}
routes:
  fine: { targets: [{ connection: mock-openai, model: gpt-fine }] }
  all-reject:
    targets:
      - { connection: mock-openai, model: "reject-o?status=400" }
      - { connection: mock-anthropic, model: "reject-a?status=400" }
`);
  const { key } = await createKey(gateway.url, ADMIN_TOKEN, { name: 'responses-caller', limits: { rpm: 1000 } });
  client = openAiClient(gateway.url, key);
});
afterAll(() => gateway.close());

type ErrorBody = { error: { message: string; type: string; param: string | null; code: string; request_id: string; attempts?: unknown[] } };

async function refusal(request: Promise<unknown>): Promise<{ status: number; body: ErrorBody }> {
  try {
    await request;
  } catch (error) {
    if (!(error instanceof OpenAI.APIError)) throw error;
    return { status: error.status!, body: { error: error.error as ErrorBody['error'] } };
  }
  throw new Error('the request was not refused');
}

describe('refusals on POST /v1/responses', () => {
  it('a field out of range is a 400 naming it in param', async () => {
    const { status, body } = await refusal(client.responses.create({ model: 'fine', input: 'hi', temperature: 3 }));
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ type: 'invalid_request_error', param: 'temperature', request_id: expect.stringMatching(/^req_/) });
  });

  it('a malformed input item is a 400 naming the item', async () => {
    const { status, body } = await refusal(
      client.responses.create({ model: 'fine', input: [{ type: 'function_call_output', output: 'x' } as unknown as OpenAI.Responses.ResponseInputItem] }),
    );
    expect(status).toBe(400);
    expect(body.error.param).toMatch(/^input\[0\]/);
  });

  it('a previous_response_id no stored response has is a 400 previous_response_not_found, before any provider', async () => {
    const { status, body } = await refusal(client.responses.create({ model: 'fine', input: 'and then?', previous_response_id: 'resp_abc' }));
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'previous_response_not_found', param: 'previous_response_id' });
    expect(body.error.message).toContain("'resp_abc'");
    expect(gateway.mock.attemptsFor('gpt-fine')).toHaveLength(0);
  });

  it('a bad key is a 401 in the same shape', async () => {
    const { status, body } = await refusal(openAiClient(gateway.url, 'sk-not-a-key').responses.create({ model: 'fine', input: 'hi' }));
    expect(status).toBe(401);
    expect(body.error).toMatchObject({ code: 'invalid_api_key', request_id: expect.stringMatching(/^req_/) });
  });

  it('an unknown model is refused without a provider call', async () => {
    const { status, body } = await refusal(client.responses.create({ model: 'no-such-route', input: 'hi' }));
    expect(status).toBe(404);
    expect(body.error.code).toBe('model_not_found');
  });

  it('the final error after failover lists every attempt', async () => {
    const { status, body } = await refusal(client.responses.create({ model: 'all-reject', input: 'hi' }));
    expect(status).toBe(400);
    expect(body.error.request_id).toMatch(/^req_/);
    expect(body.error.attempts).toHaveLength(2);
    expect(gateway.mock.attemptsFor('reject-o')).toHaveLength(1);
    expect(gateway.mock.attemptsFor('reject-a')).toHaveLength(1);
  });
});
