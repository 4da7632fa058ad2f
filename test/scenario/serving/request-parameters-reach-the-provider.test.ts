import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  openai-upstream: { targets: [{ connection: mock-openai, model: gpt-mock }] }
  anthropic-upstream: { targets: [{ connection: mock-anthropic, model: claude-mock }] }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

const caller = {
  messages: [
    { role: 'system', content: 'Answer in JSON.' },
    { role: 'user', content: 'Give me a colour.' },
  ],
  stop: ['END'],
  temperature: 0.2,
  top_p: 0.9,
  max_completion_tokens: 64,
  response_format: { type: 'json_object' },
  seed: 42,
  stream: true,
};

it('forwards the OpenAI parameters to an OpenAI-dialect upstream and always asks it for usage', async () => {
  const response = await postChat(gateway.url, { ...caller, model: 'openai-upstream' });
  expect(response.status).toBe(200);
  await response.text();
  const sent = gateway.mock.attemptsFor('gpt-mock')[0]!.body as Record<string, unknown>;
  expect(sent).toMatchObject({
    model: 'gpt-mock',
    messages: [
      { role: 'system', content: 'Answer in JSON.' },
      { role: 'user', content: 'Give me a colour.' },
    ],
    stop: ['END'],
    temperature: 0.2,
    top_p: 0.9,
    max_completion_tokens: 64,
    response_format: { type: 'json_object' },
    seed: 42,
    stream: true,
    stream_options: { include_usage: true },
  });
});

it('translates them for an Anthropic-dialect upstream', async () => {
  const response = await postChat(gateway.url, { ...caller, model: 'anthropic-upstream' });
  expect(response.status).toBe(200);
  await response.text();
  const attempt = gateway.mock.attemptsFor('claude-mock')[0]!;
  expect(attempt.path).toBe('/v1/messages');
  expect(attempt.headers['anthropic-version']).toBe('2023-06-01');
  const sent = attempt.body as Record<string, unknown>;
  expect(sent).toMatchObject({
    model: 'claude-mock',
    system: 'Answer in JSON.',
    messages: [{ role: 'user', content: 'Give me a colour.' }],
    stop_sequences: ['END'],
    temperature: 0.2,
    top_p: 0.9,
    max_tokens: 64,
    stream: true,
  });
  // OpenAI-only fields do not leak into another provider's request.
  expect(sent).not.toHaveProperty('seed');
  expect(sent).not.toHaveProperty('response_format');
});

it('sends Anthropic a max_tokens default when the caller gave none', async () => {
  const response = await postChat(gateway.url, { model: 'anthropic-upstream', messages: [{ role: 'user', content: 'hi' }] });
  expect(response.status).toBe(200);
  const sent = gateway.mock.attemptsFor('claude-mock')[0]!.body as Record<string, unknown>;
  expect(sent.max_tokens).toBe(4096);
});
