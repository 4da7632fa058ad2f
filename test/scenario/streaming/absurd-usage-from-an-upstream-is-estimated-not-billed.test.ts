import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { createKey, keysAuth, type CreatedKey } from '../../support/virtual-keys.js';
import { ADMIN_TOKEN, fetchRecord, hello, metricsText, metricValue, sseData } from '../scenario-helpers.js';

/** An OpenAI-shaped upstream whose every answer claims 1e308 tokens each way. */
const ABSURD = { prompt_tokens: 1e308, completion_tokens: 1e308, total_tokens: 1e308 };
let upstreamCalls = 0;

function absurdUpstream(): Server {
  return createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      upstreamCalls++;
      const body = JSON.parse(text) as { model: string; stream?: boolean };
      if (!body.stream) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            id: 'chatcmpl-1',
            object: 'chat.completion',
            created: 1,
            model: body.model,
            choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there, friend.' }, finish_reason: 'stop' }],
            usage: ABSURD,
          }),
        );
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: unknown, finish: string | null) => ({ id: 'chatcmpl-2', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] });
      response.write(`data: ${JSON.stringify(chunk({ role: 'assistant', content: 'Hello there, friend.' }, null))}\n\n`);
      response.write(`data: ${JSON.stringify(chunk({}, 'stop'))}\n\n`);
      response.write(`data: ${JSON.stringify({ id: 'chatcmpl-2', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [], usage: ABSURD })}\n\n`);
      response.end('data: [DONE]\n\n');
    });
  });
}

let upstream: Server;
let gateway: TestGateway;
let key: CreatedKey;
let client: Client;

beforeAll(async () => {
  upstream = absurdUpstream();
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  gateway = await startGateway(`
${keysAuth(ADMIN_TOKEN)}
connections:
  mock: { provider: mock }
  absurd: { provider: openai, base_url: "http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1", api_key: absurd-upstream-key }
  absurd-translated: { provider: openai, base_url: "http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1", api_key: absurd-upstream-key, relay: off }
routes:
  chat: { targets: [{ connection: absurd, model: gpt-4o }] }
  chat-translated: { targets: [{ connection: absurd-translated, model: gpt-4o }] }
`);
  key = await createKey(gateway.url, ADMIN_TOKEN, { name: 'tenant', budget: { usd: 5, period: 'day' } });
  // One connection for every request below: a request the gateway broke would reset the next.
  client = new Client(gateway.url, { pipelining: 1 });
});
afterAll(async () => {
  await client.close();
  await gateway.close();
  await new Promise((resolve) => upstream.close(resolve));
});

async function post(body: unknown): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const response = await client.request({
    path: '/v1/chat/completions',
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key.key}` },
    body: JSON.stringify(body),
  });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}

function expectSaneCount(count: unknown): void {
  expect(Number.isInteger(count)).toBe(true);
  expect(count as number).toBeGreaterThanOrEqual(0);
  expect(count as number).toBeLessThan(1_000);
}

it('usage of 1e308 tokens is estimated and marked, the spend stays finite, and the key keeps working on the same connection', async () => {
  const whole = await post({ model: 'chat', messages: hello });
  expect(whole.status).toBe(200);
  const answer = JSON.parse(whole.text) as { usage: { prompt_tokens: number; completion_tokens: number } };
  expectSaneCount(answer.usage.prompt_tokens);
  expectSaneCount(answer.usage.completion_tokens);
  expect(answer.usage.completion_tokens).toBeGreaterThan(0);

  const usageChunkOf = (text: string) =>
    sseData(text)
      .filter((data) => data.startsWith('{'))
      .map((data) => JSON.parse(data) as { usage?: { prompt_tokens: number; completion_tokens: number } | null })
      .find((chunk) => chunk.usage);
  // Translated, the stream's usage chunk is the gateway's: the estimate the ledger charges.
  const translated = await post({ model: 'chat-translated', stream: true, stream_options: { include_usage: true }, messages: hello });
  expect(translated.status).toBe(200);
  expectSaneCount(usageChunkOf(translated.text)?.usage?.prompt_tokens);
  expectSaneCount(usageChunkOf(translated.text)?.usage?.completion_tokens);
  expect(sseData(translated.text).at(-1)).toBe('[DONE]');
  // Relayed, each frame is the provider's as sent, its usage chunk included (docs/providers.md, the same-dialect relay);
  // the record and the ledger have the estimate all the same.
  const streamed = await post({ model: 'chat', stream: true, stream_options: { include_usage: true }, messages: hello });
  expect(streamed.status).toBe(200);
  expect(usageChunkOf(streamed.text)?.usage).toEqual(ABSURD);
  expect(sseData(streamed.text).at(-1)).toBe('[DONE]');

  for (const response of [whole, translated, streamed]) {
    const record = await fetchRecord(gateway.url, String(response.headers['x-request-id']));
    expect(record.attempts[0]!.usage).toMatchObject({ estimated: true });
    expect(Number.isFinite(record.cost_usd)).toBe(true);
    expect(record.cost_usd).toBeLessThan(0.01);
  }

  // The budget still admits the key, on the very connection that carried the absurd answers.
  const third = await post({ model: 'chat', messages: hello });
  expect(third.status).toBe(200);
  expect(upstreamCalls).toBe(4);

  await gateway.app.records.flush();
  const spend = (await (await fetch(`${gateway.url}/admin/keys/${key.id}/spend`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as { usd: number | null };
  expect(typeof spend.usd).toBe('number');
  expect(spend.usd!).toBeLessThan(0.01);

  const spent = metricValue(await metricsText(gateway.url), 'switchyard_spend_usd_total', { route: 'chat' });
  expect(Number.isFinite(spent)).toBe(true);
  expect(spent!).toBeLessThan(0.01);
});
