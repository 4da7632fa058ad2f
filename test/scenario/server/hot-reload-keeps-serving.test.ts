import { afterAll, beforeAll, expect, it } from 'vitest';
import { configChange } from '../../support/config-change.js';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';

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

/** A reload that the watcher (or SIGHUP) made, serving exactly these routes. */
const reloadedWith = (...routes: string[]) =>
  configChange(gateway.configSource, (change) => change.event === 'reloaded' && Object.keys(change.config.routes).join() === routes.join());

it('picks up a changed file and serves the new route', async () => {
  expect(await routeNames()).toEqual(['first']);
  const reloaded = reloadedWith('first', 'second');
  gateway.writeConfig(second);
  await reloaded;
  const response = await postChat(gateway.url, { model: 'second', messages: [{ role: 'user', content: 'hi' }] });
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/claude-two');
});

it('rejects a bad file and keeps the config in force', async () => {
  const rejected = configChange(gateway.configSource, (change) => change.event === 'rejected');
  gateway.writeConfig(configWith('  broken: { targets: [{ connection: nowhere, model: x }] }'));
  await rejected;
  expect(await routeNames()).toEqual(['first', 'second']);
  const response = await postChat(gateway.url, { model: 'first', messages: [{ role: 'user', content: 'hi' }] });
  expect(response.status).toBe(200);
});

it('reloads on SIGHUP', async () => {
  const reloaded = reloadedWith('first');
  gateway.writeConfig(first);
  await reloaded;
  gateway.writeConfig(second);
  process.emit('SIGHUP');
  expect(await routeNames()).toEqual(['first', 'second']);
});
