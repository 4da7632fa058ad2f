import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RequestRecord } from '../../../src/core/request-record.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { eventually, hello } from '../scenario-helpers.js';

const DRAIN_MS = 300;
const directory = mkdtempSync(join(tmpdir(), 'switchyard-drain-cut-'));
const storeFile = join(directory, 'switchyard.db');
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
store: { kind: sqlite, path: "${storeFile}" }
${MOCK_CONNECTIONS}
routes:
  # About 6 s of stream: far longer than drain_ms.
  long: { targets: [{ connection: mock-openai, model: "gpt-mock?chunks=60&chunk_ms=100" }] }
  # Headers and heartbeats go out at once; the first token is 10 s away.
  silent:
    targets: [{ connection: mock-openai, model: "gpt-mock?first_token_ms=10000" }]
    timeouts: { heartbeat_ms: 50, first_token_ms: 20000 }
`);
});
// The test closes the gateway itself, with a drain time.
afterAll(async () => {
  await gateway.mock.close();
  rmSync(directory, { recursive: true, force: true });
});

/** A stream being read: what has arrived so far, and its whole text once it ends (or how it broke). */
function reading(response: Response): { text(): string; ended: Promise<string> } {
  let text = '';
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value, { stream: true });
      return text;
    } catch (error) {
      return `${text}(broken: ${(error as Error).message})`;
    }
  })();
  return { text: () => text, ended };
}

function stream(path: string, route: string): Promise<Response> {
  return fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(path === '/v1/responses' ? { model: route, stream: true, input: 'hi' } : { model: route, stream: true, max_tokens: 64, messages: hello }),
  });
}

it('streams still running when drain_ms runs out get their dialect’s error event, then their socket closes, and are recorded as cut by the shutdown', async () => {
  const responses = await Promise.all([
    stream('/v1/chat/completions', 'long'),
    stream('/v1/messages', 'long'),
    stream('/v1/responses', 'long'),
    stream('/v1/chat/completions', 'silent'),
  ]);
  expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200]);
  const [chat, anthropic, responsesApi, waiting] = responses.map(reading) as [ReturnType<typeof reading>, ReturnType<typeof reading>, ReturnType<typeof reading>, ReturnType<typeof reading>];
  // Content is flowing on the three streams, and the fourth has had a heartbeat.
  await eventually(() => chat.text().includes('"content"') && anthropic.text().includes('text_delta') && responsesApi.text().includes('output_text.delta'), 10_000, 'content on every stream');
  await eventually(() => waiting.text().includes(': keep-alive'), 10_000, 'a heartbeat on the waiting stream');

  await gateway.app.close({ drainMs: DRAIN_MS });
  const [chatText, anthropicText, responsesText, waitingText] = await Promise.all([chat.ended, anthropic.ended, responsesApi.ended, waiting.ended]);

  // Each ends the way its SDK raises on, without the normal ending, and the connection closed cleanly.
  for (const text of [chatText, anthropicText, responsesText, waitingText]) expect(text).not.toContain('(broken');
  expect(lastEvent(chatText)).toMatchObject({ data: { error: { code: 'stream_interrupted' } } });
  expect(chatText).not.toContain('[DONE]');
  expect(lastEvent(anthropicText)).toMatchObject({ event: 'error', data: { type: 'error', error: { type: 'overloaded_error' } } });
  expect(anthropicText).not.toContain('message_stop');
  expect(lastEvent(responsesText)).toMatchObject({ event: 'response.failed', data: { response: { status: 'failed', error: { code: 'stream_interrupted' } } } });
  expect(responsesText).not.toContain('response.completed');
  expect(lastEvent(waitingText)).toMatchObject({ data: { error: { code: 'stream_interrupted' } } });
  for (const text of [chatText, anthropicText, responsesText, waitingText]) expect(text).toMatch(/shutting down/);
  // The provider's side of every stream was let go.
  expect(gateway.mock.attempts.map((attempt) => attempt.outcome)).toEqual(['client_closed', 'client_closed', 'client_closed', 'client_closed']);

  const db = new Database(storeFile, { readonly: true });
  try {
    const records = (db.prepare('SELECT record_json FROM requests').pluck().all() as string[]).map((json) => JSON.parse(json) as RequestRecord);
    expect(records.map((record) => [record.route, record.status, record.http_status, record.error_code])).toEqual([
      ['long', 'interrupted', 200, 'shutdown'],
      ['long', 'interrupted', 200, 'shutdown'],
      ['long', 'interrupted', 200, 'shutdown'],
      ['silent', 'interrupted', 200, 'shutdown'],
    ]);
    for (const record of records) expect(record.error_message).toMatch(/drain_ms/);
  } finally {
    db.close();
  }
});

/** The last SSE event of a body: its `event:` name (if any) and its parsed `data:`. */
function lastEvent(body: string): { event?: string; data: unknown } {
  const frames = body.split('\n\n').filter((frame) => frame.split('\n').some((line) => line.startsWith('data: ')));
  const lines = frames.at(-1)!.split('\n');
  const event = lines.find((line) => line.startsWith('event: '))?.slice('event: '.length);
  const data = JSON.parse(lines.find((line) => line.startsWith('data: '))!.slice('data: '.length)) as unknown;
  return { ...(event === undefined ? {} : { event }), data };
}
