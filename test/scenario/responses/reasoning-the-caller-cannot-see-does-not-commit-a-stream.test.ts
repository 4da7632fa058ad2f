import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { anthropicClient } from '../../support/sdk-clients.js';
import { countDone, sseData, sseErrors } from '../scenario-helpers.js';

/**
 * An OpenAI-dialect upstream that thinks aloud and dies: a role chunk and three unsigned
 * reasoning deltas, then the stream ends without a finish.
 */
let upstream: Server;
let upstreamRequests = 0;
let gateway: TestGateway;

const REASONING = ['Let me think', ' about this', ' carefully.'];

beforeAll(async () => {
  upstream = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      upstreamRequests++;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: Record<string, unknown>) =>
        `data: ${JSON.stringify({ id: 'chatcmpl-thinker', object: 'chat.completion.chunk', created: 1, model: 'thinker', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
      response.end(chunk({ role: 'assistant', content: '' }) + REASONING.map((text) => chunk({ reasoning_content: text })).join(''));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const { port } = upstream.address() as AddressInfo;
  gateway = await startGateway(`
connections:
  thinker: { provider: mock, dialect: openai, base_url: "http://127.0.0.1:${port}/v1" }
  standby: { provider: mock, dialect: openai }
routes:
  thinks-then-dies:
    retries: 0
    targets:
      - { connection: thinker, model: thinker }
      - { connection: standby, model: standby-answers }
`);
});
afterAll(async () => {
  await gateway.close();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});
beforeEach(() => {
  gateway.mock.reset();
  upstreamRequests = 0;
});

const request = { model: 'thinks-then-dies', max_tokens: 256, messages: [{ role: 'user' as const, content: 'Hard question' }] };

it.each([
  ['without thinking', {}],
  ['with thinking (unsigned reasoning is still not shown)', { thinking: { type: 'enabled' as const, budget_tokens: 1024 } }],
])('an Anthropic-dialect caller %s gets the standby\'s whole answer: the reasoning it cannot see committed nothing', async (_name, extra) => {
  const client = anthropicClient(gateway.url);
  const { data: stream, response } = await client.messages.create({ ...request, ...extra, stream: true }).withResponse();
  let text = '';
  const types: string[] = [];
  for await (const event of stream) {
    types.push(event.type);
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
  }
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('standby/standby-answers');
  expect(response.headers.get('x-switchyard-attempts')).toBe('2');
  expect(text).toBe(mockAnswerText(8));
  expect(types).not.toContain('error');
  expect(types.at(-1)).toBe('message_stop');
  expect(upstreamRequests).toBe(1);
  expect(gateway.mock.attemptsFor('standby-answers')).toHaveLength(1);
});

it('an OpenAI Chat caller, which is shown the reasoning, is committed by it: the cut is its error, and the standby is not tried', async () => {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...request, stream: true }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = await response.text();
  expect(response.status).toBe(200);
  const reasoning = sseData(body)
    .filter((data) => data.startsWith('{"id"'))
    .map((data) => (JSON.parse(data) as { choices: { delta: { reasoning_content?: string } }[] }).choices[0]?.delta.reasoning_content ?? '')
    .join('');
  expect(reasoning).toBe(REASONING.join(''));
  expect(sseErrors(body)).toEqual([expect.objectContaining({ type: 'stream_interrupted' })]);
  expect(countDone(body)).toBe(0);
  expect(upstreamRequests).toBe(1);
  expect(gateway.mock.attemptsFor('standby-answers')).toHaveLength(0);
});
