import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, hello } from '../scenario/scenario-helpers.js';
import { runCli } from '../support/cli-process.js';
import { postChat, startGateway, type TestGateway } from '../support/start-gateway.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
  mock-anthropic: { provider: mock, dialect: anthropic }
routes:
  flaky:
    targets:
      - { connection: mock-openai, model: "primary?status=503" }
      - { connection: mock-anthropic, model: standby }
  down:
    targets:
      - { connection: mock-openai, model: "broken?status=500" }
      - { connection: mock-anthropic, model: "also-broken?status=503" }
  throttled:
    targets:
      - { connection: mock-openai, model: "slow-down?status=429&retry_after=120" }
      - { connection: mock-anthropic, model: "slow-down-too?status=429&retry_after=120" }
`);
});
afterAll(() => gateway?.close());

async function send(model: string): Promise<{ status: number; id: string }> {
  const response = await postChat(gateway.url, { model, messages: hello });
  await response.text();
  return { status: response.status, id: response.headers.get('x-request-id')! };
}

async function show(id: string): Promise<string> {
  const { code, stdout, stderr } = await runCli(['requests', 'show', id, '--url', gateway.url, '--token', ADMIN_TOKEN]);
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return stdout;
}

/** The table row whose first cell is `first`. */
const row = (stdout: string, first: string) => stdout.split('\n').find((line) => line.startsWith(first));

it('a request that failed over and failed prints the error it ended with and why the gateway moved on from each attempt', async () => {
  const { status, id } = await send('down');
  expect(status).toBe(502);
  const stdout = await show(id);
  expect(stdout).toMatch(/^error +upstream_error: every attempt failed \(attempts: server_error ×\d+\)$/m);
  expect(row(stdout, '#1 ')).toMatch(/ mock-openai\/broken\?status=500 +server_error +500 .* server_error — .+$/);
  expect(row(stdout, `#${stdout.match(/^#(\d+) /gm)!.length} `)).toMatch(/ server_error — .+; nothing left to try \(failed\)$/);
});

it('a request served past an ejected primary names it as skipped, with the failure that ejected it and until when to the second', async () => {
  // The primary's 503s (each retried once) eject it after its third; later requests pass it over.
  let served: { status: number; id: string } | undefined;
  for (let sent = 0; sent < 4; sent++) served = await send('flaky');
  expect(served!.status).toBe(200);
  const stdout = await show(served!.id);
  expect(stdout).not.toMatch(/^error /m);
  expect(row(stdout, '#1 ')).toMatch(/ mock-anthropic\/standby +ok .* served the answer$/);
  expect(stdout).toMatch(/^skipped targets$/m);
  expect(row(stdout, 'mock-openai/primary?status=503 ')).toMatch(/^mock-openai\/primary\?status=503 +ejected \(server_error\) +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \(in (\d+ min )?\d+ s\)$/);
});

it('a request every target was skipped for prints its error, no attempt, and each skipped target with its cause and until when', async () => {
  expect((await send('throttled')).status).toBe(429);
  const { status, id } = await send('throttled');
  expect(status).toBe(429);
  const stdout = await show(id);
  expect(stdout).toMatch(/^error +rate_limit_error rate_limit_exceeded: every target of this route is rate limited \(skipped: cooling ×2\)$/m);
  expect(stdout).toMatch(/^\(no attempts: every target of the route was passed over\)$/m);
  for (const target of ['mock-openai/slow-down?status=429&retry_after=120', 'mock-anthropic/slow-down-too?status=429&retry_after=120']) {
    expect(row(stdout, `${target} `), target).toMatch(/ cooling \(rate_limit\) +\S+Z \(in (1 min( \d+ s)?|2 min|\d+ s)\)$/);
  }
});
