import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import type { TestGateway } from '../../support/start-gateway.js';
import { postgresForThisFile } from '../../support/postgres-server.js';
import { openAiClient } from '../../support/sdk-clients.js';
import { createKey } from '../../support/virtual-keys.js';
import { queryPostgres, startGatewayOnPostgres } from '../postgres-helpers.js';
import { ADMIN_TOKEN } from '../scenario-helpers.js';

const { available, server } = postgresForThisFile();
const spillDirectory = mkdtempSync(join(tmpdir(), 'switchyard-pg-replicas-'));
let replicaA: TestGateway | undefined;
let replicaB: TestGateway | undefined;
let url: string;

beforeAll(async () => {
  if (!available) return;
  url = await server().createDatabase('replicas');
  replicaA = await startGatewayOnPostgres(url, join(spillDirectory, 'a'));
  replicaB = await startGatewayOnPostgres(url, join(spillDirectory, 'b'));
}, 60_000);
afterAll(async () => {
  await replicaA?.close();
  await replicaB?.close();
  rmSync(spillDirectory, { recursive: true, force: true });
});

it.skipIf(!available)('turn 1 streamed by replica A, turn 2 on replica B as soon as the stream ends: B expands the conversation from PostgreSQL', async () => {
  const { id: keyId, key } = await createKey(replicaA!.url, ADMIN_TOKEN, { name: 'two-replicas' });
  const onA = openAiClient(replicaA!.url, key);
  const onB = openAiClient(replicaB!.url, key);

  for (let turn = 0; turn < 5; turn++) {
    let firstId: string | undefined;
    for await (const event of await onA.responses.create({ model: 'paid', input: `Question ${turn}`, stream: true })) {
      if (event.type === 'response.completed') firstId = event.response.id;
    }
    const second = await onB.responses.create({ model: 'paid', input: 'Go on.', previous_response_id: firstId! });
    expect(second.previous_response_id).toBe(firstId);
    const sent = replicaB!.mock.attemptsFor('gpt-paid').at(-1)!.body as { messages: { role: string; content: unknown }[] };
    expect(sent.messages).toEqual([
      { role: 'user', content: `Question ${turn}` },
      { role: 'assistant', content: mockAnswerText(8) },
      { role: 'user', content: 'Go on.' },
    ]);
  }
  const rows = await queryPostgres<{ count: string }>(url, 'SELECT count(*) FROM stored_responses WHERE key_id = $1', [keyId]);
  expect(Number(rows[0]!.count)).toBe(10);
});
