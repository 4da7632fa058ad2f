import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { anthropicClient } from '../../support/sdk-clients.js';

let gateway: TestGateway;
let client: Anthropic;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  via-anthropic: { targets: [{ connection: mock-anthropic, model: entry-anthropic }] }
  via-openai: { targets: [{ connection: mock-openai, model: entry-openai }] }
  via-gemini: { targets: [{ connection: mock-gemini, model: entry-gemini }] }
  via-bedrock: { targets: [{ connection: mock-bedrock, model: entry-bedrock }] }
`);
  client = anthropicClient(gateway.url);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

const PLAN_MODE = { role: 'system' as const, content: 'Plan mode is on.' };
// Shown only until the next user message, which has come: the model no longer reads it.
const PASSED_REMINDER = { role: 'system' as const, content: 'Reminder: the todo list is empty.', clear_at: 'next_user_message' as const };

async function ask(model: string): Promise<{ text: string; status: number }> {
  const { data, response } = await client.beta.messages
    .create({
      model,
      max_tokens: 256,
      system: 'You are terse.',
      messages: [
        { role: 'user', content: 'Hello' },
        PASSED_REMINDER,
        { role: 'assistant', content: 'Hi.' },
        PLAN_MODE,
        { role: 'user', content: 'What next?' },
      ],
    })
    .withResponse();
  return { text: data.content.map((block) => (block.type === 'text' ? block.text : '')).join(''), status: response.status };
}

function bodyFor(model: string): Record<string, unknown> {
  const attempts = gateway.mock.attemptsFor(model);
  expect(attempts).toHaveLength(1);
  return attempts[0]!.body as Record<string, unknown>;
}

it('an Anthropic target receives every system entry in place, exactly as sent', async () => {
  expect(await ask('via-anthropic')).toEqual({ text: mockAnswerText(8), status: 200 });
  const body = bodyFor('entry-anthropic');
  expect(body.system).toBe('You are terse.');
  expect(body.messages).toEqual([
    { role: 'user', content: 'Hello' },
    PASSED_REMINDER,
    { role: 'assistant', content: 'Hi.' },
    PLAN_MODE,
    { role: 'user', content: 'What next?' },
  ]);
});

it('an OpenAI target receives the entry the model still reads as a system message in place', async () => {
  expect(await ask('via-openai')).toEqual({ text: mockAnswerText(8), status: 200 });
  expect(bodyFor('entry-openai').messages).toEqual([
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Hello' },
    { role: 'assistant', content: 'Hi.' },
    { role: 'system', content: 'Plan mode is on.' },
    { role: 'user', content: 'What next?' },
  ]);
});

it('a Gemini target receives it in its system instructions, after the system prompt', async () => {
  expect(await ask('via-gemini')).toEqual({ text: mockAnswerText(8), status: 200 });
  const body = bodyFor('entry-gemini');
  expect(body.systemInstruction).toEqual({ parts: [{ text: 'You are terse.' }, { text: 'Plan mode is on.' }] });
  expect(body.contents).toEqual([
    { role: 'user', parts: [{ text: 'Hello' }] },
    { role: 'model', parts: [{ text: 'Hi.' }] },
    { role: 'user', parts: [{ text: 'What next?' }] },
  ]);
});

it('a Bedrock target receives it in its system blocks, after the system prompt', async () => {
  expect(await ask('via-bedrock')).toEqual({ text: mockAnswerText(8), status: 200 });
  const body = bodyFor('entry-bedrock');
  expect(body.system).toEqual([{ text: 'You are terse.' }, { text: 'Plan mode is on.' }]);
  expect(body.messages).toEqual([
    { role: 'user', content: [{ text: 'Hello' }] },
    { role: 'assistant', content: [{ text: 'Hi.' }] },
    { role: 'user', content: [{ text: 'What next?' }] },
  ]);
});
