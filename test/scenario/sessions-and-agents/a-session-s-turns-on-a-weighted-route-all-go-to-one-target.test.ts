import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCodeTurn, weightedOverTwoAccounts } from '../../support/agent-sessions.js';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';
import { ADMIN_TOKEN, fetchRecord } from '../scenario-helpers.js';

const TURNS = 20;
const SESSION = '5d6c1f7e-2b8a-4c3d-9e0f-a1b2c3d4e5f6';

let gateway: TestGateway;
let openai: OpenAI;

beforeAll(async () => {
  gateway = await startGateway(`admin: { token: ${ADMIN_TOKEN} }
${weightedOverTwoAccounts({ sticky: '', spread: 'affinity: off' })}`);
  openai = openAiClient(gateway.url);
});
afterAll(() => gateway.close());

/** A turn of the session; returns `x-switchyard-served-by` and the request id. */
async function turn(route: string, index: number): Promise<{ servedBy: string; id: string }> {
  const response = await claudeCodeTurn(gateway.url, { route, session: SESSION, text: `turn ${index}` });
  expect(response.status).toBe(200);
  return { servedBy: response.headers.get('x-switchyard-served-by')!, id: response.headers.get('x-request-id')! };
}

describe('a session on a weighted route of two equal targets', () => {
  it('20 turns sent with x-claude-code-session-id all go to one target: the first is new, the rest bound, the record keeps a hash of the session', async () => {
    const turns = [];
    for (let index = 0; index < TURNS; index++) turns.push(await turn('sticky', index));
    expect(new Set(turns.map((sent) => sent.servedBy)).size).toBe(1);
    const records = await Promise.all(turns.map((sent) => fetchRecord(gateway.url, sent.id)));
    expect(records.map((record) => record.affinity)).toEqual(['new', ...Array<string>(TURNS - 1).fill('bound')]);
    expect(new Set(records.map((record) => record.session)).size).toBe(1);
    expect(records[0]!.session).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(records)).not.toContain(SESSION);
  });

  it('20 turns of the Responses API that share a prompt_cache_key all go to one target', async () => {
    const servedBy = new Set<string>();
    for (let index = 0; index < TURNS; index++) {
      const { response } = await openai.responses.create({ model: 'sticky', input: `turn ${index}`, prompt_cache_key: 'codex-thread-7', store: false }).withResponse();
      servedBy.add(response.headers.get('x-switchyard-served-by')!);
    }
    expect(servedBy.size).toBe(1);
  });

  it('with affinity: off the same session is spread over both targets, and its records carry no affinity', async () => {
    const turns = [];
    for (let index = 0; index < TURNS; index++) turns.push(await turn('spread', index));
    // Each turn's target is drawn afresh: all 20 on one has a chance of 2 in a million.
    expect(new Set(turns.map((sent) => sent.servedBy))).toEqual(new Set(['account-a/claude-mock', 'account-b/claude-mock']));
    const record = await fetchRecord(gateway.url, turns[0]!.id);
    expect(record.session).toMatch(/^[0-9a-f]{32}$/);
    expect(record).not.toHaveProperty('affinity');
  });
});
