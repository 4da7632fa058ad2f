import { createServer, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, eventually, fetchRecord, hello } from '../scenario-helpers.js';

/**
 * An upstream that holds each chat until the test lets it answer, then reports 1,000 input and
 * 1,000 output tokens: the test reloads the config while the request is between admission and
 * settlement.
 */
let upstream: Server;
const held: ServerResponse[] = [];
let upstreamRequests = 0;
let gateway: TestGateway;

const configAt = (pricePerMtok: number, port: number) => `
auth: { mode: keys }
admin: { token: ${ADMIN_TOKEN} }
connections:
  scripted: { provider: openai-compatible, base_url: "http://127.0.0.1:${port}/v1", api_key: scripted-key }
routes:
  paid:
    retries: 0
    targets: [{ connection: scripted, model: gpt-held, price: { input_per_mtok: ${pricePerMtok}, output_per_mtok: ${pricePerMtok} } }]
`;

const COMPLETION = JSON.stringify({
  id: 'chatcmpl-held',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-held',
  choices: [{ index: 0, message: { role: 'assistant', content: 'done' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1_000, completion_tokens: 1_000, total_tokens: 2_000 },
});

let port = 0;
beforeAll(async () => {
  upstream = createServer((request, response) => {
    upstreamRequests++;
    request.resume();
    request.on('end', () => held.push(response));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  port = (upstream.address() as AddressInfo).port;
  gateway = await startGateway(configAt(1_000, port));
});
afterAll(async () => {
  await gateway.close();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

it('a price change reloaded while a request runs does not change what it is settled and billed with', async () => {
  // A $2 budget: the request reserves about $1 (1,000 output tokens at $1,000 per million) and really costs $2.
  const created = await fetch(`${gateway.url}/admin/keys`, {
    method: 'POST',
    headers: { ...admin, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'reload-key', budget: { usd: 2, period: 'month' } }),
  });
  const { id: keyId, key } = (await created.json()) as { id: string; key: string };
  const caller = { authorization: `Bearer ${key}` };

  const answered = postChat(gateway.url, { model: 'paid', max_tokens: 1_000, messages: hello }, caller);
  await eventually(() => held.length === 1, 5_000, 'the upstream to hold the request');
  // Admitted and in flight: now the price drops a thousandfold.
  gateway.writeConfig(configAt(1, port));
  expect(gateway.configSource.reload()).toEqual([]);
  held[0]!.writeHead(200, { 'content-type': 'application/json' }).end(COMPLETION);
  const response = await answered;
  expect(response.status).toBe(200);

  // The spend row and the record are priced from the config the request started with ...
  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  expect(record.cost_usd).toBe(2);
  expect(record.attempts.map((attempt) => attempt.cost_usd)).toEqual([2]);
  const spend = (await (await fetch(`${gateway.url}/admin/keys/${keyId}/spend`, { headers: admin })).json()) as { usd: number; reserved_usd: number };
  expect(spend).toMatchObject({ usd: 2, reserved_usd: 0 });

  // ... and so was the settlement of its reservation: the $2 budget is spent, even at the new price.
  const refused = await postChat(gateway.url, { model: 'paid', max_tokens: 1, messages: hello }, caller);
  expect(refused.status).toBe(429);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('budget_exceeded');
  expect(upstreamRequests).toBe(1);
});
