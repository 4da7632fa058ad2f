import { afterAll, beforeAll, expect, it } from 'vitest';
import { mockAnswerText, startMockProvider, type MockProvider } from '../../../src/mock/mock-provider.js';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';

// An OpenAI target on its own Responses API, slow to its first token: the caller's headers went out
// with the first keep-alive comment, before anyone knew which target would answer.
let upstream: MockProvider;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startMockProvider();
  gateway = await startGateway(`
connections:
  openai-direct: { provider: openai, api_key: sk-test, base_url: "${upstream.url}/v1" }
routes:
  slow:
    timeouts: { heartbeat_ms: 100, first_token_ms: 5000 }
    targets: [{ connection: openai-direct, model: "thinking?first_token_ms=400" }]
`);
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

it.each([
  ['without hosted tools', {}],
  ['with a hosted tool, which that target takes', { tools: [{ type: 'web_search' }] }],
])('%s: keep-alive comments, then the whole answer', async (_name, extra) => {
  const response = await fetch(`${gateway.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'slow', input: 'hi', stream: true, ...extra }),
    signal: AbortSignal.timeout(10_000),
  });
  expect(response.status).toBe(200);
  const body = await response.text();
  expect(body.indexOf(': keep-alive')).toBe(0);
  const events = body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as { type: string; delta?: string });
  expect(events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : [])).join('')).toBe(mockAnswerText(8));
  expect(events.at(-1)?.type).toBe('response.completed');
});
