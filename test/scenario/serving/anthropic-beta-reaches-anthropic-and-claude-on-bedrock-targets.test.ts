import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { anthropicClient } from '../../support/sdk-clients.js';

let gateway: TestGateway;
let client: Anthropic;

const CLAUDE_ON_BEDROCK = 'anthropic.claude-sonnet-4-5-20250929-v1:0';

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  beta-anthropic: { targets: [{ connection: mock-anthropic, model: beta-claude }] }
  beta-bedrock-claude: { targets: [{ connection: mock-bedrock, model: "${CLAUDE_ON_BEDROCK}" }] }
  beta-bedrock-nova: { targets: [{ connection: mock-bedrock, model: amazon.nova-pro-v1:0 }] }
  beta-openai: { targets: [{ connection: mock-openai, model: beta-gpt }] }
`);
  client = anthropicClient(gateway.url);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

const BETAS = ['context-management-2025-06-27', 'effort-2025-11-24'];

async function askWithBetas(model: string): Promise<string> {
  const message = await client.beta.messages.create({
    model,
    max_tokens: 64,
    betas: BETAS,
    context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
    messages: [{ role: 'user', content: 'Hello' }],
  });
  return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

function onlyAttempt(name: string) {
  const attempts = gateway.mock.attemptsFor(name);
  expect(attempts).toHaveLength(1);
  return { headers: attempts[0]!.headers, body: attempts[0]!.body as Record<string, unknown> };
}

it('an Anthropic target gets the caller\'s anthropic-beta header with the body fields it enables', async () => {
  expect(await askWithBetas('beta-anthropic')).toBe(mockAnswerText(8));
  const { headers, body } = onlyAttempt('beta-claude');
  expect(headers['anthropic-beta']).toBe(BETAS.join(','));
  expect(body.context_management).toEqual({ edits: [{ type: 'clear_tool_uses_20250919' }] });
});

it('Claude on Bedrock gets the flags as anthropic_beta in its additional model request fields', async () => {
  expect(await askWithBetas('beta-bedrock-claude')).toBe(mockAnswerText(8));
  const { headers, body } = onlyAttempt(CLAUDE_ON_BEDROCK);
  expect(headers['anthropic-beta']).toBeUndefined();
  expect(body.additionalModelRequestFields).toEqual({ anthropic_beta: BETAS });
});

it('targets that are not Claude get neither the header nor the field', async () => {
  expect(await askWithBetas('beta-bedrock-nova')).toBe(mockAnswerText(8));
  const nova = onlyAttempt('amazon.nova-pro-v1:0');
  expect(nova.body).not.toHaveProperty('additionalModelRequestFields');
  expect(nova.headers['anthropic-beta']).toBeUndefined();

  expect(await askWithBetas('beta-openai')).toBe(mockAnswerText(8));
  const gpt = onlyAttempt('beta-gpt');
  expect(gpt.headers['anthropic-beta']).toBeUndefined();
  expect(gpt.body).not.toHaveProperty('context_management');
});
