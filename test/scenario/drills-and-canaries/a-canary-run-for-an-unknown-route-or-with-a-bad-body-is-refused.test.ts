import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { canaryDirectory, MOCK_REFERENCE, postCanaries, writePrompts } from '../canary-helpers.js';
import { ADMIN_TOKEN } from '../scenario-helpers.js';

const directory = canaryDirectory();
let gateway: TestGateway;

beforeAll(async () => {
  const slow = writePrompts(directory.path, 'slow.jsonl', [{ question: 'a', reference: MOCK_REFERENCE }]);
  const quick = writePrompts(directory.path, 'quick.jsonl', [{ question: 'b', reference: MOCK_REFERENCE }]);
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  slow: { targets: [{ connection: mock-openai, model: gpt-slow }] }
  quick: { targets: [{ connection: mock-openai, model: gpt-quick }] }
canaries:
  slow: { interval_s: 0, prompts: "${slow}" }
  quick: { interval_s: 0, prompts: "${quick}" }
`);
});
afterAll(async () => {
  await gateway.close();
  directory.remove();
});

it('a canary run for a route without a canary, or with a body that is not {"route": NAME}, is refused naming it, and nothing runs', async () => {
  const unknown = await postCanaries(gateway.url, 'nope');
  expect(unknown.status).toBe(404);
  expect(unknown.body.error).toMatchObject({ code: 'not_found', message: 'Route "nope" has no canary (canaries: slow, quick).' });
  const bad = await fetch(`${gateway.url}/admin/canaries`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ routes: ['slow'] }),
  });
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as { error: { message: string } }).error.message).toBe('Unknown field "routes"; the body is {"route": NAME}.');
  expect((await fetch(`${gateway.url}/admin/canaries`)).status).toBe(401);
  expect(gateway.mock.attempts).toEqual([]);
});
