import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { canaryDirectory, canaryRoutes, MOCK_REFERENCE, runCanary, writePrompts } from '../canary-helpers.js';
import { ADMIN_TOKEN } from '../scenario-helpers.js';

// A key of no common shape: only the gateway's knowledge of its configured secrets can catch it.
const KEY = 'echoed-key-Qm27Xv90Lp';
const directory = canaryDirectory();
let upstream: Server;
let gateway: TestGateway;
const received: string[] = [];

beforeAll(async () => {
  // Refuses every request with a message that repeats the key it was sent, as some providers do.
  upstream = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const key = String(request.headers.authorization ?? '').replace(/^Bearer /, '');
      received.push(key);
      response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `Incorrect API key provided: ${key}.`, type: 'invalid_request_error', code: 'invalid_api_key' } }));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const prompts = writePrompts(directory.path, 'prompts.jsonl', [{ question: 'q', reference: MOCK_REFERENCE }]);
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  echoing: { provider: openai-compatible, base_url: "http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1", api_key: ${KEY} }
routes:
  echoed: { retries: 0, targets: [{ connection: echoing, model: gpt-echo }] }
canaries:
  echoed: { interval_s: 0, prompts: "${prompts}", baseline: 1 }
`);
});
afterAll(async () => {
  await gateway.close();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
  directory.remove();
});

it("a failed prompt's error says what the provider said, with the key it echoed redacted, in the run answered and the runs listed", async () => {
  const run = await runCanary(gateway.url, 'echoed');
  expect(received).toEqual([KEY]);
  expect(run.prompts[0]).toMatchObject({ score: 0, served: null, error: expect.stringMatching(/^request failed: credential: Incorrect API key provided: \[redacted\]/) });
  const listed = JSON.stringify(await fetch(`${gateway.url}/admin/canaries`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then((response) => response.json()));
  expect(listed).toContain('[redacted]');
  expect(listed).not.toContain(KEY);
  expect((await canaryRoutes(gateway.url)).get('echoed')!.latest).toHaveLength(1);
});
