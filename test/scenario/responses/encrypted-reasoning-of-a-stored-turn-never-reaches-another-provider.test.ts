import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { StoredResponses } from '../../../src/conversations/stored-responses.js';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { migrate } from '../../../src/store/migrate.js';
import { openStore } from '../../../src/store/open-database.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';

const directory = mkdtempSync(join(tmpdir(), 'switchyard-encrypted-reasoning-'));
const file = join(directory, 'store.db');
const ENCRYPTED = 'gAAAA-encrypted-by-openai';
let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  // A turn an OpenAI target answered on its own Responses API: reasoning it encrypted, then text.
  const opened = openStore({ kind: 'sqlite', path: file });
  await migrate(opened.db);
  await new StoredResponses(opened.db).save({
    id: 'resp_from_openai',
    keyId: null,
    createdMs: Date.now(),
    model: 'gpt-5',
    provider: 'openai',
    connection: 'openai-main',
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Think about yards.' }] }],
    response: {
      id: 'resp_from_openai',
      object: 'response',
      output: [
        { id: 'rs_1', type: 'reasoning', summary: [], encrypted_content: ENCRYPTED },
        { id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Yards sort wagons.', annotations: [] }] },
      ],
    },
  });
  await opened.db.destroy();
  gateway = await startGateway(`
store: { kind: sqlite, path: "${file}" }
${MOCK_CONNECTIONS}
routes:
  claude: { targets: [{ connection: mock-anthropic, model: claude-next }] }
  gpt-chat: { targets: [{ connection: mock-openai, model: gpt-chat-next }] }
`);
  client = openAiClient(gateway.url);
});
afterAll(async () => {
  await gateway.close();
  rmSync(directory, { recursive: true, force: true });
});

it.each([
  ['claude', 'claude-next'],
  ['gpt-chat', 'gpt-chat-next'],
])('the next turn on %s gets the conversation without the encrypted reasoning', async (route, model) => {
  const next = await client.responses.create({ model: route, input: 'Go on.', previous_response_id: 'resp_from_openai' });
  expect(next.output_text).toBe(mockAnswerText(8));
  const sent = JSON.stringify(gateway.mock.attemptsFor(model).at(-1)!.body);
  expect(sent).toContain('Think about yards.');
  expect(sent).toContain('Yards sort wagons.');
  expect(sent).toContain('Go on.');
  expect(sent).not.toContain(ENCRYPTED);
  expect(sent).not.toContain('origin');
});
