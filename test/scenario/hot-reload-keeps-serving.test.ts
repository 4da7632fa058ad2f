import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../support/start-gateway.js';

let gateway: TestGateway;

const configWith = (routes: string) => `${MOCK_CONNECTIONS}\nroutes:\n${routes}\n`;
const first = configWith('  first: { targets: [{ connection: mock-openai, model: gpt-one }] }');
const second = configWith(
  '  first: { targets: [{ connection: mock-openai, model: gpt-one }] }\n  second: { targets: [{ connection: mock-anthropic, model: claude-two }] }',
);

beforeAll(async () => {
  gateway = await startGateway(first, { watch: true });
});
afterAll(() => gateway.close());

async function routeNames(): Promise<string[]> {
  const response = await fetch(`${gateway.url}/v1/models`);
  return ((await response.json()) as { data: { id: string }[] }).data.map((model) => model.id);
}

/** Polls an observable condition (bounded): the file watcher reloads in the background. */
async function eventually(condition: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > giveUpAt) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

it('picks up a changed file and serves the new route', async () => {
  expect(await routeNames()).toEqual(['first']);
  gateway.writeConfig(second);
  await eventually(async () => (await routeNames()).includes('second'));
  const response = await postChat(gateway.url, { model: 'second', messages: [{ role: 'user', content: 'hi' }] });
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/claude-two');
});

it('rejects a bad file and keeps the config in force', async () => {
  const rejected: unknown[] = [];
  gateway.configSource.subscribe((change) => {
    if (change.event === 'rejected') rejected.push(change.issues);
  });
  gateway.writeConfig(configWith('  broken: { targets: [{ connection: nowhere, model: x }] }'));
  await eventually(async () => rejected.length > 0);
  expect(await routeNames()).toEqual(['first', 'second']);
  const response = await postChat(gateway.url, { model: 'first', messages: [{ role: 'user', content: 'hi' }] });
  expect(response.status).toBe(200);
});

it('reloads on SIGHUP', async () => {
  gateway.writeConfig(first);
  await eventually(async () => (await routeNames()).length === 1);
  gateway.writeConfig(second);
  process.emit('SIGHUP');
  expect(await routeNames()).toEqual(['first', 'second']);
});
