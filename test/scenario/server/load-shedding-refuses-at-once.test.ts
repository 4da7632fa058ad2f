import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { eventually } from '../scenario-helpers.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
server: { max_in_flight: 3 }
connections:
  narrow: { provider: mock, dialect: openai, max_in_flight: 2 }
  mock-openai: { provider: mock, dialect: openai }
routes:
  narrow-route:
    targets: [{ connection: narrow, model: "slow-n?first_token_ms=800" }]
  wide-route:
    targets: [{ connection: mock-openai, model: "slow-w?first_token_ms=800" }]
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

const hello = [{ role: 'user', content: 'hi' }];

const untilMockSaw = (count: number) => eventually(() => gateway.mock.attempts.length >= count, 3_000, `the mock to see ${count} attempts`);

async function expectOverloaded(response: Response, startedAt: number): Promise<void> {
  expect(response.status).toBe(503);
  expect(Date.now() - startedAt).toBeLessThan(500);
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(((await response.json()) as { error: { code: string } }).error.code).toBe('overloaded');
}

describe('load shedding', () => {
  it('a connection at max_in_flight is skipped as busy: the third request gets 503 at once', async () => {
    const first = postChat(gateway.url, { model: 'narrow-route', stream: true, messages: hello });
    const second = postChat(gateway.url, { model: 'narrow-route', stream: true, messages: hello });
    await untilMockSaw(2);
    const startedAt = Date.now();
    await expectOverloaded(await postChat(gateway.url, { model: 'narrow-route', messages: hello }), startedAt);
    expect(gateway.mock.attemptsFor('slow-n')).toHaveLength(2);
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    // Once they finish, the connection takes requests again.
    expect((await postChat(gateway.url, { model: 'mock-openai/quick', messages: hello })).status).toBe(200);
  });

  it('past server.max_in_flight every request is refused at once, never queued', async () => {
    const running = [1, 2, 3].map(() => postChat(gateway.url, { model: 'wide-route', stream: true, messages: hello }));
    await untilMockSaw(3);
    const startedAt = Date.now();
    await expectOverloaded(await postChat(gateway.url, { model: 'wide-route', messages: hello }), startedAt);
    expect(gateway.mock.attemptsFor('slow-w')).toHaveLength(3);
    for (const response of await Promise.all(running)) expect(response.status).toBe(200);
  });
});
