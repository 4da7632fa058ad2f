import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';
import { createKey, keysAuth } from '../../support/virtual-keys.js';

const ADMIN_TOKEN = 'stored-responses-admin';
let gateway: TestGateway;
let ownerKey: string;
let owner: OpenAI;
let stranger: OpenAI;

beforeAll(async () => {
  gateway = await startGateway(`
${keysAuth(ADMIN_TOKEN)}
${MOCK_CONNECTIONS}
routes:
  talk: { targets: [{ connection: mock-openai, model: gpt-talk }] }
`);
  ownerKey = (await createKey(gateway.url, ADMIN_TOKEN, { name: 'owner' })).key;
  owner = openAiClient(gateway.url, ownerKey);
  stranger = openAiClient(gateway.url, (await createKey(gateway.url, ADMIN_TOKEN, { name: 'stranger' })).key);
});
afterAll(() => gateway.close());

async function refusal(request: Promise<unknown>): Promise<{ status: number; error: { message: string; type: string; code: string | null; param: string | null } }> {
  try {
    await request;
  } catch (error) {
    if (!(error instanceof OpenAI.APIError)) throw error;
    return { status: error.status!, error: error.error as never };
  }
  throw new Error('the request was not refused');
}

it('GET returns the response as create returned it; another key gets a 404 and previous_response_not_found; DELETE removes it for good', async () => {
  const created = await owner.responses.create({ model: 'talk', input: 'Keep this.', metadata: { topic: 'yards' } });

  const read = await owner.responses.retrieve(created.id);
  expect(JSON.parse(JSON.stringify(read))).toEqual(JSON.parse(JSON.stringify(created)));

  const strangerRead = await refusal(stranger.responses.retrieve(created.id));
  expect(strangerRead.status).toBe(404);
  expect(strangerRead.error).toMatchObject({ type: 'invalid_request_error', message: `Response with id '${created.id}' not found.` });
  const strangerTurn = await refusal(stranger.responses.create({ model: 'talk', input: 'Mine now?', previous_response_id: created.id }));
  expect(strangerTurn.status).toBe(400);
  expect(strangerTurn.error).toMatchObject({ code: 'previous_response_not_found', param: 'previous_response_id' });
  expect((await refusal(stranger.responses.delete(created.id))).status).toBe(404);
  // The stranger's attempts reached no provider and deleted nothing.
  expect(gateway.mock.attemptsFor('gpt-talk')).toHaveLength(1);
  expect((await owner.responses.retrieve(created.id)).id).toBe(created.id);

  // The SDK's delete resolves with nothing: the body is read here.
  const deleted = await fetch(`${gateway.url}/v1/responses/${created.id}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${ownerKey}` },
    signal: AbortSignal.timeout(5_000),
  });
  expect(deleted.status).toBe(200);
  expect(await deleted.json()).toEqual({ id: created.id, object: 'response', deleted: true });

  expect((await refusal(owner.responses.retrieve(created.id))).status).toBe(404);
  expect((await refusal(owner.responses.delete(created.id))).status).toBe(404);
  const afterDelete = await refusal(owner.responses.create({ model: 'talk', input: 'Still there?', previous_response_id: created.id }));
  expect(afterDelete.error.code).toBe('previous_response_not_found');
});

it('GET or DELETE without a key is a 401, as POST is', async () => {
  const response = await fetch(`${gateway.url}/v1/responses/resp_anything`, { signal: AbortSignal.timeout(5_000) });
  expect(response.status).toBe(401);
});
