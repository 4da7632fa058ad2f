import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';

let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  talk: { targets: [{ connection: mock-openai, model: gpt-talk }] }
`);
  client = openAiClient(gateway.url);
});
afterAll(() => gateway.close());

async function statusOf(request: Promise<unknown>): Promise<{ status: number; code: string | null }> {
  try {
    await request;
  } catch (error) {
    if (!(error instanceof OpenAI.APIError)) throw error;
    return { status: error.status!, code: (error.error as { code: string | null }).code };
  }
  throw new Error('the request was not refused');
}

it.each([false, true])('store: false (stream %s) answers as usual, and the response can be neither read nor continued', async (stream) => {
  let id: string;
  if (stream) {
    const final = await client.responses.stream({ model: 'talk', input: 'Forget me.', store: false }).finalResponse();
    expect(final).toMatchObject({ store: false });
    expect(final.output).toMatchObject([{ type: 'message', content: [{ type: 'output_text', text: mockAnswerText(8) }] }]);
    id = final.id;
  } else {
    const answer = await client.responses.create({ model: 'talk', input: 'Forget me.', store: false });
    expect(answer).toMatchObject({ store: false });
    expect(answer.output_text).toBe(mockAnswerText(8));
    id = answer.id;
  }
  expect(await statusOf(client.responses.retrieve(id))).toEqual({ status: 404, code: 'not_found' });
  // Its twin without store: false is kept: the 404 is the caller's choice, not a missing feature.
  const kept = await client.responses.create({ model: 'talk', input: 'Forget me.' });
  expect((await client.responses.retrieve(kept.id)).id).toBe(kept.id);
  expect(await statusOf(client.responses.create({ model: 'talk', input: 'Remember?', previous_response_id: id }))).toEqual({
    status: 400,
    code: 'previous_response_not_found',
  });
});
