import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord, hello, sseContent, sseErrors } from '../scenario-helpers.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
routes:
  cut-openai: { targets: [{ connection: mock-openai, model: "usage-cut-o?cut_after=3" }] }
  cut-anthropic: { targets: [{ connection: mock-anthropic, model: "usage-cut-a?cut_after=3" }] }
  whole: { targets: [{ connection: mock-openai, model: usage-whole }] }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

it.each([
  ['cut-openai', 'usage-cut-o'],
  ['cut-anthropic', 'usage-cut-a'],
])('%s: a stream cut after commit records estimated usage with output_tokens > 0', async (route, upstream) => {
  const response = await postChat(gateway.url, { model: route, stream: true, stream_options: { include_usage: true }, messages: hello });
  const body = await response.text();
  expect(response.status).toBe(200);
  expect(sseContent(body)).toBe(mockAnswerText(3));
  expect(sseErrors(body)).toMatchObject([{ type: 'stream_interrupted' }]);
  expect(gateway.mock.attemptsFor(upstream)).toHaveLength(1);

  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  expect(record.status).toBe('interrupted');
  expect(record.attempts).toHaveLength(1);
  const served = record.attempts[0]!;
  expect(served).toMatchObject({ kind: 'stream_interrupted', committed: true });
  expect(served.usage).toMatchObject({ estimated: true });
  expect(served.usage!.output_tokens).toBeGreaterThan(0);
  expect(served.usage!.input_tokens).toBeGreaterThan(0);
  // The request's usage is the served attempt's.
  expect(record.usage).toMatchObject({ estimated: true });
  expect(record.usage!.output_tokens).toBe(served.usage!.output_tokens);
});

it('a complete stream records the provider usage, not an estimate', async () => {
  const response = await postChat(gateway.url, { model: 'whole', stream: true, messages: hello });
  await response.text();
  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  expect(record.status).toBe('ok');
  expect(record.attempts[0]!.usage).toMatchObject({ output_tokens: 8 });
  expect(record.attempts[0]!.usage!.estimated).toBeUndefined();
  expect(gateway.mock.attemptsFor('usage-whole')).toHaveLength(1);
});
