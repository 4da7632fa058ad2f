import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { readFixture, readFixtureJson } from '../../support/fixtures.js';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';

// A scripted OpenAI upstream that answers /v1/responses with the recorded reasoning answers.
const FIXTURES = 'openai-responses-dialect';
const received: Record<string, unknown>[] = [];
let upstream: Server;
let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  upstream = createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    request.on('end', () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      received.push({ path: request.url, ...body });
      if (body.stream === true) {
        response.writeHead(200, { 'content-type': 'text/event-stream' }).end(readFixture(FIXTURES, 'stream-reasoning-summary.sse'));
      } else {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(readFixtureJson(FIXTURES, 'response-reasoning.json')));
      }
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const { port } = upstream.address() as AddressInfo;
  gateway = await startGateway(`
connections:
  openai-direct: { provider: openai, api_key: sk-test, base_url: "http://127.0.0.1:${port}/v1" }
routes:
  thinker: { targets: [{ connection: openai-direct, model: gpt-5-nano }] }
`);
  client = openAiClient(gateway.url);
});
afterAll(async () => {
  await gateway.close();
  upstream.closeAllConnections();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});
beforeEach(() => {
  received.length = 0;
});

const request = {
  model: 'thinker',
  input: 'How do I cross the street?',
  reasoning: { effort: 'low', summary: 'auto' },
  include: ['reasoning.encrypted_content' as const],
  store: false,
} satisfies OpenAI.Responses.ResponseCreateParamsNonStreaming;

it('responses.create: the reasoning item keeps its encrypted content beside its summary', async () => {
  const answer = await client.responses.create(request);
  const recorded = (readFixtureJson(FIXTURES, 'response-reasoning.json').output as Record<string, unknown>[])[0]!;
  const reasoning = answer.output.filter((item) => item.type === 'reasoning');
  expect(reasoning).toHaveLength(1);
  expect(reasoning[0]!.encrypted_content).toBe(recorded.encrypted_content);
  expect(reasoning[0]!.summary.length).toBeGreaterThan(0);
  expect(answer.output_text.length).toBeGreaterThan(0);
  // The caller's request went up as it was sent, `include` and `store` with it.
  expect(received[0]).toMatchObject({ path: '/v1/responses', model: 'gpt-5-nano', include: ['reasoning.encrypted_content'], store: false, reasoning: { effort: 'low', summary: 'auto' } });
});

it('responses.stream: one reasoning item, its summary streamed and its encrypted content whole on output_item.done', async () => {
  const recordedLines = readFixture(FIXTURES, 'stream-reasoning-summary.sse')
    .split('\n')
    .filter((line) => line.startsWith('data: '));
  const recordedDone = recordedLines
    .filter((line) => line.includes('"response.output_item.done"') && line.includes('"reasoning"'))
    .map((line) => (JSON.parse(line.slice(6)) as { item: { encrypted_content: string } }).item.encrypted_content);
  // OpenAI encrypts the reasoning again for `response.completed`: the relayed stream's final response is that one.
  const recordedCompleted = recordedLines
    .filter((line) => line.includes('"response.completed"'))
    .map((line) => (JSON.parse(line.slice(6)) as { response: { output: { type: string; encrypted_content?: string }[] } }).response.output.find((item) => item.type === 'reasoning')!.encrypted_content);
  const stream = client.responses.stream(request);
  const events: OpenAI.Responses.ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);

  const added = events.filter((event) => event.type === 'response.output_item.added' && event.item.type === 'reasoning');
  const done = events.flatMap((event) => (event.type === 'response.output_item.done' && event.item.type === 'reasoning' ? [event.item] : []));
  expect(added).toHaveLength(1);
  expect(done).toHaveLength(1);
  expect(done[0]!.encrypted_content).toBe(recordedDone[0]);
  expect(done[0]!.summary[0]!.text.startsWith('**Providing street crossing')).toBe(true);
  expect(events.some((event) => event.type === 'response.reasoning_summary_text.delta')).toBe(true);
  const final = await stream.finalResponse();
  expect(final.output.find((item) => item.type === 'reasoning')).toMatchObject({ encrypted_content: recordedCompleted[0] });
  expect(received[0]).toMatchObject({ stream: true });
});
