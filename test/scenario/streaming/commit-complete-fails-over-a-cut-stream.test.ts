import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';
import { countDone, hello, sseContent, sseErrors } from '../scenario-helpers.js';

let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  # retries: 0 so the cut moves straight to the standby (see the last test for the default).
  buffered:
    commit: complete
    retries: 0
    targets:
      - { connection: mock-openai, model: "cut-primary?cut_after=3" }
      - { connection: mock-anthropic, model: whole-standby }
  buffered-default-retries:
    commit: complete
    backoff: { base_ms: 10, max_ms: 20 }
    targets:
      - { connection: mock-openai, model: "cut-again?cut_after=3" }
      - { connection: mock-anthropic, model: whole-standby-2 }
`);
  client = openAiClient(gateway.url);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

function expectOneAttemptEach() {
  expect(gateway.mock.attemptsFor('cut-primary').map((attempt) => attempt.outcome)).toEqual(['cut']);
  expect(gateway.mock.attemptsFor('whole-standby').map((attempt) => attempt.outcome)).toEqual(['ok']);
}

it('wire: the caller gets only the standby answer, whole, with no error event and one [DONE]', async () => {
  const response = await postChat(gateway.url, { model: 'buffered', stream: true, messages: hello });
  const body = await response.text();
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/whole-standby');
  expect(response.headers.get('x-switchyard-attempts')).toBe('2');
  // Not the primary's three chunks followed by the standby's answer: one answer, never spliced.
  expect(sseContent(body)).toBe(mockAnswerText(8));
  expect(sseErrors(body)).toEqual([]);
  expect(countDone(body)).toBe(1);
  expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);
  expectOneAttemptEach();
});

it('SDK: the stream completes without raising', async () => {
  let text = '';
  let finish: string | null | undefined;
  for await (const chunk of await client.chat.completions.create({ model: 'buffered', stream: true, messages: hello })) {
    text += chunk.choices[0]?.delta.content ?? '';
    finish ??= chunk.choices[0]?.finish_reason;
  }
  expect(text).toBe(mockAnswerText(8));
  expect(finish).toBe('stop');
  expectOneAttemptEach();
});

it('with the default retries: 1, the cut primary is retried once first, still invisibly', async () => {
  const response = await postChat(gateway.url, { model: 'buffered-default-retries', stream: true, messages: hello });
  const body = await response.text();
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/whole-standby-2');
  expect(response.headers.get('x-switchyard-attempts')).toBe('3');
  expect(sseContent(body)).toBe(mockAnswerText(8));
  expect(sseErrors(body)).toEqual([]);
  expect(countDone(body)).toBe(1);
  expect(gateway.mock.attemptsFor('cut-again').map((attempt) => attempt.outcome)).toEqual(['cut', 'cut']);
  expect(gateway.mock.attemptsFor('whole-standby-2')).toHaveLength(1);
});
