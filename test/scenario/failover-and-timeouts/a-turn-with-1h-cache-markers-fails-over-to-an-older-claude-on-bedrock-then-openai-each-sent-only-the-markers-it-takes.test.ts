import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';

type Json = Record<string, unknown>;

/** Claude 3.7 Sonnet caches on Bedrock, but only for the default 5 minutes: it is sent no `ttl`. */
const BEDROCK_CLAUDE = 'us.anthropic.claude-3-7-sonnet-20250219-v1:0';
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  claude:
    retries: 0
    targets:
      - { connection: mock-anthropic, model: "claude-primary?status=529" }
      - { connection: mock-bedrock, model: "${BEDROCK_CLAUDE}?status=503" }
      - { connection: mock-openai, model: gpt-standby }
`);
});
afterAll(() => gateway.close());

const HOUR = { type: 'ephemeral', ttl: '1h' };

/** A coding agent's turn: the tools and system cached for an hour, the conversation for five minutes. */
const TURN = {
  model: 'claude',
  max_tokens: 1024,
  tools: [{ name: 'read_file', description: 'Read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } }, cache_control: HOUR }],
  system: [
    { type: 'text', text: 'You are Claude Code.' },
    { type: 'text', text: 'Project instructions: keep answers short.', cache_control: HOUR },
  ],
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'What is in README.md?', cache_control: { type: 'ephemeral' } }] },
  ],
};

it('is answered by the OpenAI-wire standby, each target having been sent the markers it takes and none it would refuse', async () => {
  const response = await fetch(`${gateway.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(TURN),
    signal: AbortSignal.timeout(10_000),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-openai/gpt-standby');
  expect(response.headers.get('x-switchyard-attempts')).toBe('3');

  const [anthropic] = gateway.mock.attemptsFor('claude-primary');
  const [bedrock] = gateway.mock.attemptsFor(BEDROCK_CLAUDE);
  const [openai] = gateway.mock.attemptsFor('gpt-standby');
  // Anthropic: the markers as the caller sent them, TTLs included.
  const anthropicBody = anthropic!.body as Json;
  expect((anthropicBody.tools as Json[])[0]!.cache_control).toEqual(HOUR);
  expect((anthropicBody.system as Json[])[1]!.cache_control).toEqual(HOUR);
  expect(JSON.stringify(anthropicBody.messages)).toContain('"cache_control":{"type":"ephemeral"}');
  // Claude 3.7 on Bedrock: cache points after the marked blocks, without the hour it does not take.
  const bedrockBody = bedrock!.body as { toolConfig: { tools: Json[] }; system: Json[]; messages: { content: Json[] }[] };
  expect(bedrockBody.toolConfig.tools.at(-1)).toEqual({ cachePoint: { type: 'default' } });
  expect(bedrockBody.system.at(-1)).toEqual({ cachePoint: { type: 'default' } });
  expect(bedrockBody.messages[0]!.content.at(-1)).toEqual({ cachePoint: { type: 'default' } });
  expect(JSON.stringify(bedrockBody)).not.toContain('cache_control');
  // OpenAI's wire has no markers: none reach it, in any form.
  const openaiText = JSON.stringify(openai!.body);
  expect(openaiText).not.toMatch(/cache_control|cachePoint|"ttl"/);
  expect((openai!.body as { messages: Json[] }).messages[0]).toEqual({ role: 'system', content: 'You are Claude Code.\nProject instructions: keep answers short.' });
});
