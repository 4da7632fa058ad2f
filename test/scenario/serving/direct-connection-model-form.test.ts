import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`${MOCK_CONNECTIONS}\nroutes: {}\n`);
});
afterAll(() => gateway.close());

it('routes connection/model straight to that connection', async () => {
  const response = await postChat(gateway.url, { model: 'mock-anthropic/claude-direct', messages: [{ role: 'user', content: 'hi' }] });
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/claude-direct');
  const body = (await response.json()) as { model: string };
  expect(body.model).toBe('claude-direct');
  expect(gateway.mock.attemptsFor('claude-direct')).toHaveLength(1);
  expect(gateway.mock.attemptsFor('claude-direct')[0]!.dialect).toBe('anthropic');
});

it('lists configured routes on /v1/models', async () => {
  const response = await fetch(`${gateway.url}/v1/models`);
  expect(response.status).toBe(200);
  expect(response.headers.get('x-request-id')).toMatch(/^req_/);
  expect(await response.json()).toEqual({ object: 'list', data: [] });
});
