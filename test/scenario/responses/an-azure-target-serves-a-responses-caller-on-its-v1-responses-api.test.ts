import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { readFixture, readFixtureJson } from '../../support/fixtures.js';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';

// A scripted Azure OpenAI resource: its v1 Responses API answers with the recorded text answer.
const FIXTURES = 'openai-responses-dialect';
const received: { url: string | undefined; headers: IncomingHttpHeaders; body: Record<string, unknown> }[] = [];
let azure: Server;
let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  azure = createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    request.on('end', () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      received.push({ url: request.url, headers: request.headers, body });
      if (body.stream === true) response.writeHead(200, { 'content-type': 'text/event-stream' }).end(readFixture(FIXTURES, 'stream-text.sse'));
      else response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(readFixtureJson(FIXTURES, 'response-text.json')));
    });
  });
  await new Promise<void>((resolve) => azure.listen(0, '127.0.0.1', resolve));
  const { port } = azure.address() as AddressInfo;
  gateway = await startGateway(`
connections:
  azure-east: { provider: azure-openai, api_key: azure-test-key, base_url: "http://127.0.0.1:${port}" }
routes:
  gpt: { targets: [{ connection: azure-east, model: my-gpt-deployment }] }
`);
  client = openAiClient(gateway.url);
});
afterAll(async () => {
  await gateway.close();
  azure.closeAllConnections();
  await new Promise<void>((resolve) => azure.close(() => resolve()));
});
beforeEach(() => {
  received.length = 0;
});

it('responses.create goes to {base_url}/openai/v1/responses with the deployment as the model and the api-key header', async () => {
  const recorded = readFixtureJson(FIXTURES, 'response-text.json') as { output: { content: { text: string }[] }[] };
  const answer = await client.responses.create({ model: 'gpt', input: 'hi', tools: [{ type: 'web_search' }] });
  expect(answer.output_text).toBe(recorded.output[0]!.content[0]!.text);
  expect(answer.id).toMatch(/^resp_/);
  expect(received).toHaveLength(1);
  expect(received[0]!.url).toBe('/openai/v1/responses');
  expect(received[0]!.headers['api-key']).toBe('azure-test-key');
  expect(received[0]!.headers.authorization).toBeUndefined();
  expect(received[0]!.body).toMatchObject({ model: 'my-gpt-deployment', input: 'hi', tools: [{ type: 'web_search' }] });
});

it('responses.stream is read from the recorded stream and rendered under the gateway’s id', async () => {
  const stream = client.responses.stream({ model: 'gpt', input: 'hi' });
  const final = await stream.finalResponse();
  expect(final.id).toMatch(/^resp_/);
  expect(final.status).toBe('completed');
  expect(final.output.some((item) => item.type === 'message')).toBe(true);
  expect(received[0]!.body.stream).toBe(true);
});
