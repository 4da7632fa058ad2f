import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
# Each route's targets stand for deployments of one model: written so, as their names differ.
routes:
  spread:
    strategy: weighted
    targets:
      - { connection: mock-openai, model: heavy, weight: 4 }
      - { connection: mock-anthropic, model: light, weight: 1, model_change: false }
  quickest:
    strategy: least_latency
    targets:
      - { connection: mock-openai, model: "slow?headers_delay_ms=150" }
      - { connection: mock-openai, model: fast, model_change: false }
  tiers:
    targets:
      - { connection: mock-openai, model: reserve, priority: 2, model_change: false }
      - { connection: mock-openai, model: main, priority: 1 }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

const ask = async (model: string) => {
  const response = await postChat(gateway.url, { model, messages: [{ role: 'user', content: 'hi' }] });
  expect(response.status).toBe(200);
  await response.text();
  return response.headers.get('x-switchyard-served-by');
};

it('weighted: traffic splits by weight (4:1 over 200 requests), each request tried once', async () => {
  const served: Record<string, number> = {};
  for (let request = 0; request < 200; request++) {
    const by = (await ask('spread'))!;
    served[by] = (served[by] ?? 0) + 1;
  }
  const heavyShare = (served['mock-openai/heavy'] ?? 0) / 200;
  expect(heavyShare).toBeGreaterThan(0.68);
  expect(heavyShare).toBeLessThan(0.92);
  expect(gateway.mock.attempts).toHaveLength(200);
});

it('least_latency: after each target has answered once, requests go to the faster one', async () => {
  const served: (string | null)[] = [];
  for (let request = 0; request < 6; request++) served.push(await ask('quickest'));
  expect(served.slice(0, 2)).toEqual(['mock-openai/slow?headers_delay_ms=150', 'mock-openai/fast']);
  expect(served.slice(2)).toEqual(Array(4).fill('mock-openai/fast'));
});

it('priority: the lower priority number is tried first, whatever the config order', async () => {
  expect(await ask('tiers')).toBe('mock-openai/main');
  expect(gateway.mock.attemptsFor('reserve')).toHaveLength(0);
});
