import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { fetchRecord, sseData } from '../scenario-helpers.js';

const BEDROCK_CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

let gateway: TestGateway;

// `claude` fails over from Anthropic (overloaded, no retry) to Claude on Bedrock; `anthropic-only`
// is Anthropic alone.
beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: scenario-admin-token }
${MOCK_CONNECTIONS}
routes:
  claude:
    retries: 0
    targets:
      - { connection: mock-anthropic, model: "claude-sonnet-4-5?status=529" }
      - { connection: mock-bedrock, model: "${BEDROCK_CLAUDE}" }
  anthropic-only:
    targets:
      - { connection: mock-anthropic, model: claude-sonnet-4-5 }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

const THINKING = { type: 'enabled', budget_tokens: 1024 };

/** A second turn of a conversation whose first answer came with thinking signed by `home`. */
function secondTurn(route: string, home: string, stream: boolean) {
  return {
    model: route,
    max_tokens: 2048,
    stream,
    thinking: THINKING,
    messages: [
      { role: 'user', content: 'Plan a route from A to B.' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'The toll road is shorter.', signature: `mock-signed-by-${home}.1` },
          { type: 'text', text: 'Take the toll road.' },
        ],
      },
      { role: 'user', content: 'Now avoid tolls.' },
    ],
  };
}

async function postMessages(body: unknown): Promise<Response> {
  return fetch(`${gateway.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
}

/** The text the caller got, whole or streamed. */
async function answerText(response: Response, stream: boolean): Promise<string> {
  if (!stream) return ((await response.json()) as { content: { type: string; text?: string }[] }).content.map((block) => block.text ?? '').join('');
  return sseData(await response.text())
    .map((data) => JSON.parse(data) as { type: string; delta?: { type: string; text?: string } })
    .filter((event) => event.type === 'content_block_delta' && event.delta?.type === 'text_delta')
    .map((event) => event.delta!.text)
    .join('');
}

/** What Claude on Bedrock was sent: whether each request's history carried the reasoning. */
function bedrockCarriedReasoning(): boolean[] {
  return gateway.mock.attemptsFor(BEDROCK_CLAUDE).map((attempt) => JSON.stringify(attempt.body).includes('reasoningContent'));
}

describe.each([false, true])('stream: %s', (stream) => {
  it('Bedrock refuses the thinking Anthropic signed, is asked once more without it, answers; the caller sees one answer and the record thinking_dropped', async () => {
    const response = await postMessages(secondTurn('claude', 'anthropic', stream));
    expect(response.status).toBe(200);
    expect(await answerText(response, stream)).toBe(mockAnswerText(8));
    expect(response.headers.get('x-switchyard-served-by')).toBe(`mock-bedrock/${BEDROCK_CLAUDE}`);

    expect(bedrockCarriedReasoning()).toEqual([true, false]);
    const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
    expect(record.attempts.map((attempt) => [attempt.connection, attempt.kind, attempt.thinking_dropped ?? false])).toEqual([
      ['mock-anthropic', 'server_error', false],
      ['mock-bedrock', 'invalid_request', false],
      ['mock-bedrock', 'ok', true],
    ]);
    expect(record.attempts[1]!.message).toBe('messages.1.content.0: Invalid `signature` in `thinking` block');
  });
});

it('the home that signed the thinking gets it back and nothing is dropped', async () => {
  const response = await postMessages(secondTurn('anthropic-only', 'anthropic', false));
  expect(response.status).toBe(200);
  const [attempt] = gateway.mock.attemptsFor('claude-sonnet-4-5');
  expect(JSON.stringify(attempt!.body)).toContain('mock-signed-by-anthropic.1');
  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts).toHaveLength(1);
  expect(record.attempts[0]).not.toHaveProperty('thinking_dropped');
});

it('a home that refuses the request again without the thinking ends it as an ordinary invalid request, with no third attempt', async () => {
  // With thinking on, a tool loop's last turn must start with its thinking: without it, Anthropic refuses again.
  const toolLoop = {
    model: 'anthropic-only',
    max_tokens: 2048,
    thinking: THINKING,
    tools: [{ name: 'look', input_schema: { type: 'object', properties: {} } }],
    messages: [
      { role: 'user', content: 'Look it up.' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'I should look.', signature: 'mock-signed-by-bedrock.1' },
          { type: 'tool_use', id: 'toolu_1', name: 'look', input: {} },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'found' }] },
    ],
  };
  const response = await postMessages(toolLoop);
  expect(response.status).toBe(400);
  expect(((await response.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');

  expect(gateway.mock.attemptsFor('claude-sonnet-4-5')).toHaveLength(2);
  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts.map((attempt) => [attempt.kind, attempt.thinking_dropped ?? false])).toEqual([
    ['invalid_request', false],
    ['invalid_request', true],
  ]);
  expect(record.attempts[1]!.message).toMatch(/Expected `thinking` or `redacted_thinking`, but found `tool_use`/);
});
