import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { migrate } from '../../../src/store/migrate.js';
import { openStore } from '../../../src/store/open-database.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';

const directory = mkdtempSync(join(tmpdir(), 'switchyard-unstored-'));
const file = join(directory, 'store.db');
let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  // A store that refuses every stored response (and nothing else), as a full or broken one would.
  const opened = openStore({ kind: 'sqlite', path: file });
  await migrate(opened.db);
  opened.sqlite.exec(`CREATE TRIGGER refuse_stored_responses BEFORE INSERT ON stored_responses BEGIN SELECT RAISE(ABORT, 'refused on purpose'); END;`);
  await opened.db.destroy();
  gateway = await startGateway(`
store: { kind: sqlite, path: "${file}" }
${MOCK_CONNECTIONS}
routes:
  talk: { targets: [{ connection: mock-openai, model: gpt-talk }] }
`);
  client = openAiClient(gateway.url);
});
afterAll(async () => {
  await gateway.close();
  rmSync(directory, { recursive: true, force: true });
});

it.each([false, true])('the answer (stream %s) still goes out, saying store: false, and naming it later is previous_response_not_found', async (stream) => {
  const answer = stream
    ? await client.responses.stream({ model: 'talk', input: 'Keep me?' }).finalResponse()
    : await client.responses.create({ model: 'talk', input: 'Keep me?' });
  expect(answer.status).toBe('completed');
  expect(answer).toMatchObject({ store: false });
  expect(answer.output).toMatchObject([{ type: 'message', content: [{ type: 'output_text', text: mockAnswerText(8) }] }]);

  const refused = await client.responses.create({ model: 'talk', input: 'And?', previous_response_id: answer.id }).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(OpenAI.APIError);
  expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
  expect(((refused as InstanceType<typeof OpenAI.APIError>).error as { code: string }).code).toBe('previous_response_not_found');
});
