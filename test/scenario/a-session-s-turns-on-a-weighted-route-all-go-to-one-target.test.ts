import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { anthropicClient, openAiClient } from '../support/sdk-clients.js';
import { ADMIN_TOKEN, fetchRecord } from './scenario-helpers.js';

/** Two accounts of one provider, each with its own prompt cache: a session should keep to one. */
const TWO_ACCOUNTS = `
admin: { token: ${ADMIN_TOKEN} }
connections:
  account-a: { provider: mock, dialect: anthropic }
  account-b: { provider: mock, dialect: anthropic }
routes:
  sticky:
    strategy: weighted
    targets:
      - { connection: account-a, model: claude-mock }
      - { connection: account-b, model: claude-mock }
  spread:
    strategy: weighted
    affinity: off
    targets:
      - { connection: account-a, model: claude-mock }
      - { connection: account-b, model: claude-mock }
`;
const TURNS = 20;
const SESSION = '5d6c1f7e-2b8a-4c3d-9e0f-a1b2c3d4e5f6';

let gateway: TestGateway;
let anthropic: Anthropic;
let openai: OpenAI;

beforeAll(async () => {
  gateway = await startGateway(TWO_ACCOUNTS);
  anthropic = anthropicClient(gateway.url);
  openai = openAiClient(gateway.url);
});
afterAll(() => gateway.close());

/** One turn as Claude Code sends it: the session in `x-claude-code-session-id`. Returns `x-switchyard-served-by` and the request id. */
async function claudeCodeTurn(model: string, turn: number): Promise<{ servedBy: string; id: string }> {
  const { response } = await anthropic.messages
    .create({ model, max_tokens: 64, messages: [{ role: 'user', content: `turn ${turn}` }] }, { headers: { 'x-claude-code-session-id': SESSION } })
    .withResponse();
  return { servedBy: response.headers.get('x-switchyard-served-by')!, id: response.headers.get('x-request-id')! };
}

describe('a session on a weighted route of two equal targets', () => {
  it('20 turns sent with x-claude-code-session-id all go to one target: the first is new, the rest bound, the record keeps a hash of the session', async () => {
    const turns = [];
    for (let turn = 0; turn < TURNS; turn++) turns.push(await claudeCodeTurn('sticky', turn));
    expect(new Set(turns.map((turn) => turn.servedBy)).size).toBe(1);
    const records = await Promise.all(turns.map((turn) => fetchRecord(gateway.url, turn.id)));
    expect(records.map((record) => record.affinity)).toEqual(['new', ...Array<string>(TURNS - 1).fill('bound')]);
    expect(new Set(records.map((record) => record.session)).size).toBe(1);
    expect(records[0]!.session).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(records)).not.toContain(SESSION);
  });

  it('20 turns of the Responses API that share a prompt_cache_key all go to one target', async () => {
    const servedBy = new Set<string>();
    for (let turn = 0; turn < TURNS; turn++) {
      const { response } = await openai.responses.create({ model: 'sticky', input: `turn ${turn}`, prompt_cache_key: 'codex-thread-7', store: false }).withResponse();
      servedBy.add(response.headers.get('x-switchyard-served-by')!);
    }
    expect(servedBy.size).toBe(1);
  });

  it('with affinity: off the same session is spread over both targets, and its records carry no affinity', async () => {
    const turns = [];
    for (let turn = 0; turn < TURNS; turn++) turns.push(await claudeCodeTurn('spread', turn));
    // Each turn's target is drawn afresh: all 20 on one has a chance of 2 in a million.
    expect(new Set(turns.map((turn) => turn.servedBy))).toEqual(new Set(['account-a/claude-mock', 'account-b/claude-mock']));
    const record = await fetchRecord(gateway.url, turns[0]!.id);
    expect(record.session).toMatch(/^[0-9a-f]{32}$/);
    expect(record).not.toHaveProperty('affinity');
  });
});
