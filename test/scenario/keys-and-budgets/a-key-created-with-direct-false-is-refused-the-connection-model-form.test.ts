import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { createKey, keysAuth } from '../../support/virtual-keys.js';
import { ADMIN_TOKEN, hello } from '../scenario-helpers.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
${keysAuth(ADMIN_TOKEN)}
${MOCK_CONNECTIONS}
routes:
  configured:
    targets: [{ connection: mock-openai, model: configured-model }]
`);
});
afterAll(() => gateway.close());

// The gateway serves the direct form; this key may not use it (a 403, like a route its globs do
// not cover), while its configured routes stay open and other keys keep the form.
it('a key created with direct: false gets 403 model_not_allowed for connection/model, contacting no provider', async () => {
  const restricted = await createKey(gateway.url, ADMIN_TOKEN, { name: 'routes-only', direct: false });
  expect(restricted.direct).toBe(false);
  const unrestricted = await createKey(gateway.url, ADMIN_TOKEN, { name: 'anything' });
  expect(unrestricted.direct).toBe(true);

  const refused = await postChat(gateway.url, { model: 'mock-openai/gpt-direct', messages: hello }, { authorization: `Bearer ${restricted.key}` });
  expect(refused.status).toBe(403);
  expect(((await refused.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'model_not_allowed', param: 'model' });
  expect(gateway.mock.attemptsFor('gpt-direct')).toHaveLength(0);

  const routed = await postChat(gateway.url, { model: 'configured', messages: hello }, { authorization: `Bearer ${restricted.key}` });
  expect(routed.status).toBe(200);
  const direct = await postChat(gateway.url, { model: 'mock-openai/gpt-direct', messages: hello }, { authorization: `Bearer ${unrestricted.key}` });
  expect(direct.status).toBe(200);
  expect(gateway.mock.attemptsFor('gpt-direct')).toHaveLength(1);

  const listed = await fetch(`${gateway.url}/admin/keys`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, signal: AbortSignal.timeout(5_000) });
  const keys = ((await listed.json()) as { data: { id: string; direct: boolean }[] }).data;
  expect(keys.find((key) => key.id === restricted.id)?.direct).toBe(false);
});
