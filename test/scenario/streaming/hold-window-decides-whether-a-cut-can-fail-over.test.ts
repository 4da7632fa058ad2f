import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';
import { countDone, hello, sseContent, sseErrors } from '../scenario-helpers.js';

let gateway: TestGateway;
let client: OpenAI;

// `commit: { hold_ms: 300 }`: output is held for 300 ms after the first content.
// early-cut: every chunk comes at once and the cut follows at once, well inside the window.
// (retries: 0, so a cut moves straight to the standby rather than retrying the primary.)
// late-cut: chunks every 150 ms, so the cut (after 4 chunks, at ~600 ms) comes after the window.
beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  hold-early-cut:
    commit: { hold_ms: 300 }
    retries: 0
    targets:
      - { connection: mock-openai, model: "early-cut?cut_after=2" }
      - { connection: mock-anthropic, model: hold-standby-early }
  hold-late-cut:
    commit: { hold_ms: 300 }
    retries: 0
    targets:
      - { connection: mock-openai, model: "late-cut?cut_after=4&chunk_ms=150" }
      - { connection: mock-anthropic, model: hold-standby-late }
`);
  client = openAiClient(gateway.url);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

it('a cut inside the hold window fails over invisibly', async () => {
  const response = await postChat(gateway.url, { model: 'hold-early-cut', stream: true, messages: hello });
  const body = await response.text();
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/hold-standby-early');
  expect(response.headers.get('x-switchyard-attempts')).toBe('2');
  expect(sseContent(body)).toBe(mockAnswerText(8));
  expect(sseErrors(body)).toEqual([]);
  expect(countDone(body)).toBe(1);
  expect(gateway.mock.attemptsFor('early-cut').map((attempt) => attempt.outcome)).toEqual(['cut']);
  expect(gateway.mock.attemptsFor('hold-standby-early')).toHaveLength(1);
});

it('a cut after the hold window is an interrupted stream the SDK raises on', async () => {
  const startedAt = Date.now();
  let text = '';
  let error: unknown;
  try {
    for await (const chunk of await client.chat.completions.create({ model: 'hold-late-cut', stream: true, messages: hello })) {
      text += chunk.choices[0]?.delta.content ?? '';
    }
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(OpenAI.APIError);
  expect(String((error as Error).message)).toMatch(/stream/i);
  // What was sent before the cut, and nothing from any other target.
  expect(text).toBe(mockAnswerText(4));
  expect(Date.now() - startedAt).toBeGreaterThanOrEqual(500);
  expect(gateway.mock.attemptsFor('late-cut').map((attempt) => attempt.outcome)).toEqual(['cut']);
  expect(gateway.mock.attemptsFor('hold-standby-late')).toHaveLength(0);
});

it('wire: output is held for the window, then the late cut ends with a stream_interrupted error event and no [DONE]', async () => {
  const startedAt = Date.now();
  const response = await postChat(gateway.url, { model: 'hold-late-cut', stream: true, messages: hello });
  // The first content was ready at once; the status line waited for the 300 ms window.
  expect(Date.now() - startedAt).toBeGreaterThanOrEqual(250);
  const body = await response.text();
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-openai/late-cut?cut_after=4&chunk_ms=150');
  expect(sseContent(body)).toBe(mockAnswerText(4));
  expect(sseErrors(body)).toMatchObject([{ type: 'stream_interrupted' }]);
  expect(countDone(body)).toBe(0);
  expect(gateway.mock.attemptsFor('hold-standby-late')).toHaveLength(0);
});
