import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { mockAnswerText, startMockProvider, type MockProvider } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';

// An OpenAI target on its Responses API that holds its stream at response.created … then fails in-band.
let upstream: MockProvider;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startMockProvider();
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
  openai-direct: { provider: openai, api_key: sk-test, base_url: "${upstream.url}/v1" }
routes:
  slow-then-failed:
    retries: 0
    timeouts: { heartbeat_ms: 150, first_token_ms: 5000 }
    targets:
      - { connection: openai-direct, model: "thinking?first_token_ms=600&inband_error=server_error" }
      - { connection: mock-anthropic, model: claude-standby }
`);
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.reset();
  gateway.mock.reset();
});

it('keep-alive comments while the upstream sits at response.created, then the standby’s answer alone', async () => {
  const response = await fetch(`${gateway.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'slow-then-failed', input: 'hi', stream: true }),
    signal: AbortSignal.timeout(10_000),
  });
  expect(response.status).toBe(200);
  const body = await response.text();
  // The upstream's response.created … content_part.added went out from it at once, yet nothing of it reached the caller.
  expect(body.indexOf(': keep-alive')).toBe(0);
  const events = body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as { type: string; delta?: string; response?: { model?: string } });
  expect(events.filter((event) => event.type === 'response.created')).toHaveLength(1);
  expect(events.some((event) => event.type === 'error' || event.type === 'response.failed')).toBe(false);
  expect(events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : [])).join('')).toBe(mockAnswerText(8));
  expect(events.at(-1)).toMatchObject({ type: 'response.completed', response: { model: 'claude-standby' } });
  expect(upstream.attemptsFor('thinking').map((attempt) => attempt.path)).toEqual(['/v1/responses']);
  expect(gateway.mock.attemptsFor('claude-standby')).toHaveLength(1);
});

it('the official SDK reads one clean answer through it', async () => {
  const client: OpenAI = openAiClient(gateway.url);
  const stream = client.responses.stream({ model: 'slow-then-failed', input: 'hi' });
  const final = await stream.finalResponse();
  expect(final.status).toBe('completed');
  expect(final.model).toBe('claude-standby');
});
