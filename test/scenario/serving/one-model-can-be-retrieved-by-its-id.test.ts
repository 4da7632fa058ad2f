import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';
import { createKey, keysAuth } from '../../support/virtual-keys.js';

const ADMIN_TOKEN = 'admin-token-for-model-lookups';
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
${keysAuth(ADMIN_TOKEN)}
${MOCK_CONNECTIONS}
routes:
  support-drafts: { targets: [{ connection: mock-openai, model: gpt-drafts }] }
  research: { targets: [{ connection: mock-anthropic, model: claude-research }] }
`);
});
afterAll(() => gateway.close());

async function keyFor(routes: string[]): Promise<string> {
  return (await createKey(gateway.url, ADMIN_TOKEN, { name: `models-${routes.join('-')}`, routes })).key;
}

it('the official SDK retrieves a configured route in the OpenAI model shape, as the list shows it', async () => {
  const client = openAiClient(gateway.url, await keyFor(['*']));
  const model = await client.models.retrieve('support-drafts');
  expect(model).toMatchObject({ id: 'support-drafts', object: 'model', owned_by: 'switchyard' });
  const listed = (await client.models.list()).data.find((entry) => entry.id === 'support-drafts');
  expect(model).toEqual(listed);
  expect(gateway.mock.attempts).toHaveLength(0);
});

it('an unknown id is a 404 model_not_found the SDK raises as NotFoundError', async () => {
  const client = openAiClient(gateway.url, await keyFor(['*']));
  const error = await client.models.retrieve('no-such-route').catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(OpenAI.NotFoundError);
  expect((error as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
});

it('a route the key may not use is as unknown as one that does not exist', async () => {
  const client = openAiClient(gateway.url, await keyFor(['support-*']));
  expect((await client.models.retrieve('support-drafts')).id).toBe('support-drafts');
  const error = await client.models.retrieve('research').catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(OpenAI.NotFoundError);
});

it('without a key it is a 401, like the list', async () => {
  const response = await fetch(`${gateway.url}/v1/models/support-drafts`, { signal: AbortSignal.timeout(5_000) });
  expect(response.status).toBe(401);
  expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
});
