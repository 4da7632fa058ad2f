import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMockProvider, type MockProvider } from '../../src/mock/mock-provider.js';
import { postChat, startGateway, type TestGateway } from '../support/start-gateway.js';

let external: MockProvider;
let gateway: TestGateway;

beforeAll(async () => {
  external = await startMockProvider();
  // Port 1 on loopback refuses connections: the connection's own host is unreachable.
  gateway = await startGateway(`
connections:
  mock-openai: { provider: mock, dialect: openai }
  with-alternate:
    provider: mock
    dialect: openai
    base_url: http://127.0.0.1:1/v1
    alternate_hosts: ["${external.url}/v1"]
routes:
  primary-unreachable:
    targets: [{ connection: with-alternate, model: gpt-alt }]
`);
});
afterAll(async () => {
  await gateway.close();
  await external.close();
});

it('an unreachable base URL with a working alternate host is served in one attempt', async () => {
  const response = await postChat(gateway.url, { model: 'primary-unreachable', messages: [{ role: 'user', content: 'hi' }] });
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-attempts')).toBe('1');
  expect(response.headers.get('x-switchyard-served-by')).toBe('with-alternate/gpt-alt');
  expect(external.attemptsFor('gpt-alt')).toHaveLength(1);
});
