import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readFixtureJson } from '../../support/fixtures.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';

// A scripted OpenAI upstream answering /v1/responses with a recorded answer that has encrypted reasoning.
const received: Record<string, unknown>[] = [];
let upstream: Server;
let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  upstream = createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    request.on('end', () => {
      received.push(JSON.parse(text) as Record<string, unknown>);
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(readFixtureJson('openai-responses-dialect', 'response-reasoning.json')));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const { port } = upstream.address() as AddressInfo;
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
  openai-direct: { provider: openai, api_key: sk-test, base_url: "http://127.0.0.1:${port}/v1" }
routes:
  thinker: { targets: [{ connection: openai-direct, model: gpt-5-nano }] }
  claude: { targets: [{ connection: mock-anthropic, model: claude-next }] }
`);
  client = openAiClient(gateway.url);
});
afterAll(async () => {
  await gateway.close();
  upstream.closeAllConnections();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

it('turn 2 on the same provider gets the reasoning item back whole (without the gateway’s origin); a turn on Anthropic goes without it', async () => {
  const first = await client.responses.create({ model: 'thinker', input: 'Think first.', include: ['reasoning.encrypted_content'] });
  const reasoning = first.output.find((item) => item.type === 'reasoning') as { encrypted_content?: string } | undefined;
  expect(reasoning?.encrypted_content).toEqual(expect.any(String));

  await client.responses.create({ model: 'thinker', input: 'Go on.', previous_response_id: first.id });
  const sent = received.at(-1)!;
  expect(sent).not.toHaveProperty('previous_response_id');
  const items = sent.input as Record<string, unknown>[];
  const sentReasoning = items.find((item) => item.type === 'reasoning');
  expect(sentReasoning?.encrypted_content).toBe(reasoning!.encrypted_content);
  expect(sentReasoning).not.toHaveProperty('origin');

  await client.responses.create({ model: 'claude', input: 'Go on.', previous_response_id: first.id });
  const toAnthropic = JSON.stringify(gateway.mock.attemptsFor('claude-next').at(-1)!.body);
  expect(toAnthropic).toContain('Go on.');
  expect(toAnthropic).not.toContain(reasoning!.encrypted_content!);
});
