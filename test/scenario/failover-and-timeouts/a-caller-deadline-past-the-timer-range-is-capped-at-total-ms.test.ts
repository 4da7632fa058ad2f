import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord, hello, settledOutcome } from '../scenario-helpers.js';

let gateway: TestGateway;

// The answer takes 300 ms to start: a deadline that fired at once (a timer overflowed by a
// deadline more than 2^31-1 ms away) would abort it.
beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
routes:
  chat:
    timeouts: { total_ms: 60000 }
    targets: [{ connection: mock-openai, model: "slow?first_token_ms=300" }]
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

for (const [header, value] of [
  ['x-stainless-timeout', '2147484'],
  ['x-request-timeout-ms', '1e12'],
  ['x-deadline-ms', String(Date.now() + 30 * 86_400_000)],
] as const) {
  it(`${header}: ${value} is capped at the route's total_ms and the request is served`, async () => {
    const response = await postChat(gateway.url, { model: 'chat', messages: hello }, { [header]: value });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]!.message.content.length).toBeGreaterThan(0);

    const [attempt, ...others] = gateway.mock.attemptsFor('slow');
    expect(others).toEqual([]);
    expect(await settledOutcome(attempt!)).toBe('ok');

    const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
    expect(record.deadline_ms).toBeLessThanOrEqual(60_000);
    expect(record.deadline_ms).toBeGreaterThan(59_000);
  });
}
