import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { anthropicClient } from '../../support/sdk-clients.js';
import { fetchRecord } from '../scenario-helpers.js';

let gateway: TestGateway;
let client: Anthropic;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: scenario-admin-token }
${MOCK_CONNECTIONS}
routes:
  claude: { targets: [{ connection: mock-anthropic, model: request-id-claude }] }
  claude-down: { retries: 0, targets: [{ connection: mock-anthropic, model: "request-id-down?status=500" }] }
`);
  client = anthropicClient(gateway.url);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

const hello = [{ role: 'user' as const, content: 'Hello' }];

it('a message carries request-id, the same id as x-request-id, which the SDK exposes as _request_id', async () => {
  const promise = client.messages.create({ model: 'claude', max_tokens: 64, messages: hello });
  const message = await promise;
  const { response } = await promise.withResponse();
  const id = response.headers.get('x-request-id');
  expect(id).toMatch(/^req_/);
  expect(response.headers.get('request-id')).toBe(id);
  expect(message._request_id).toBe(id);
  // The gateway's own id, never the upstream's.
  expect(id).not.toBe(gateway.mock.attemptsFor('request-id-claude')[0]!.headers['request-id']);
  expect((await fetchRecord(gateway.url, id!)).id).toBe(id);
});

it('a stream carries it too', async () => {
  const stream = client.messages.stream({ model: 'claude', max_tokens: 64, messages: hello });
  await stream.finalMessage();
  expect(stream.request_id).toMatch(/^req_/);
  expect((await fetchRecord(gateway.url, stream.request_id!)).stream).toBe(true);
});

it('so does an error, for the SDK\'s requestID', async () => {
  const error = await client.messages.create({ model: 'claude-down', max_tokens: 64, messages: hello }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(Anthropic.APIError);
  expect((error as InstanceType<typeof Anthropic.APIError>).requestID).toMatch(/^req_/);
  const unknown = await client.messages.create({ model: 'no-such-route', max_tokens: 64, messages: hello }).catch((caught: unknown) => caught);
  expect((unknown as InstanceType<typeof Anthropic.APIError>).requestID).toMatch(/^req_/);
});

it('the OpenAI dialect keeps only x-request-id', async () => {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude', messages: hello }),
    signal: AbortSignal.timeout(10_000),
  });
  await response.text();
  expect(response.headers.get('x-request-id')).toMatch(/^req_/);
  expect(response.headers.get('request-id')).toBeNull();
});
