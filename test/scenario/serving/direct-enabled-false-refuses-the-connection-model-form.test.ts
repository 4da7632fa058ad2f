import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { hello } from '../scenario-helpers.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
direct: { enabled: false }
${MOCK_CONNECTIONS}
routes:
  configured:
    targets: [{ connection: mock-openai, model: configured-model }]
`);
});
afterAll(() => gateway.close());

// With the direct form off, `connection/model` names nothing: the same 404 as any unknown model,
// so the answer does not even say which connections exist.
it('direct.enabled: false answers connection/model with 404 model_not_found, contacting no provider', async () => {
  for (const model of ['mock-openai/gpt-direct', 'mock-openai/configured-model', 'nowhere/gpt-direct']) {
    const response = await postChat(gateway.url, { model, messages: hello });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'model_not_found', param: 'model' });
  }
  expect(gateway.mock.attempts).toHaveLength(0);

  const configured = await postChat(gateway.url, { model: 'configured', messages: hello });
  expect(configured.status).toBe(200);
  expect(gateway.mock.attemptsFor('configured-model')).toHaveLength(1);
});
