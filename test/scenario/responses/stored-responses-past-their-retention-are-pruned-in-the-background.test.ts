import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { StoredResponses } from '../../../src/conversations/stored-responses.js';
import { migrate } from '../../../src/store/migrate.js';
import { openStore } from '../../../src/store/open-database.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';

const DAY_MS = 86_400_000;
const directory = mkdtempSync(join(tmpdir(), 'switchyard-responses-retention-'));
const file = join(directory, 'store.db');
let gateway: TestGateway;

function storedAt(id: string, createdMs: number) {
  return { id, keyId: null, createdMs, model: 'gpt-talk', provider: 'mock', connection: 'mock-openai', input: [], response: { id, object: 'response', output: [] } };
}

beforeAll(async () => {
  // A store left by a gateway that stopped: one response three days old, one an hour old.
  const opened = openStore({ kind: 'sqlite', path: file });
  await migrate(opened.db);
  const stored = new StoredResponses(opened.db);
  await stored.save(storedAt('resp_three_days_old', Date.now() - 3 * DAY_MS));
  await stored.save(storedAt('resp_an_hour_old', Date.now() - DAY_MS / 24));
  await opened.db.destroy();
  gateway = await startGateway(`
store: { kind: sqlite, path: "${file}" }
responses: { retention_days: 2 }
${MOCK_CONNECTIONS}
routes:
  talk: { targets: [{ connection: mock-openai, model: gpt-talk }] }
`);
});
afterAll(async () => {
  await gateway.close();
  rmSync(directory, { recursive: true, force: true });
});

it('a gateway started with responses.retention_days: 2 deletes the response three days old and keeps the newer one', async () => {
  await gateway.app.responsesPruner.whenCaughtUp();
  const reader = new Database(file, { readonly: true });
  try {
    const ids = reader.prepare('SELECT id FROM stored_responses ORDER BY id').pluck().all();
    expect(ids).toEqual(['resp_an_hour_old']);
  } finally {
    reader.close();
  }
  expect((await fetch(`${gateway.url}/v1/responses/resp_an_hour_old`, { signal: AbortSignal.timeout(5_000) })).status).toBe(200);
  expect((await fetch(`${gateway.url}/v1/responses/resp_three_days_old`, { signal: AbortSignal.timeout(5_000) })).status).toBe(404);
  const expired = await fetch(`${gateway.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'talk', input: 'Go on.', previous_response_id: 'resp_three_days_old' }),
    signal: AbortSignal.timeout(5_000),
  });
  expect(expired.status).toBe(400);
  expect(((await expired.json()) as { error: { code: string } }).error.code).toBe('previous_response_not_found');
  expect(gateway.mock.attemptsFor('gpt-talk')).toHaveLength(0);
});
