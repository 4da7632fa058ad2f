import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { canaryDirectory, MOCK_REFERENCE, runCanary, writePrompts } from '../canary-helpers.js';
import { ADMIN_TOKEN, fetchRecord } from '../scenario-helpers.js';

/**
 * A grader that answers "7" to everything, but "Grade: 7" (no grade, read strictly) when the
 * reference it is shown says "chatty"; it keeps every request's body.
 */
let grader: Server;
const graded: { model: string; messages: { role: string; content: string }[] }[] = [];
const directory = canaryDirectory();
let gateway: TestGateway;

function completion(content: string): string {
  return JSON.stringify({
    id: 'chatcmpl-grader',
    object: 'chat.completion',
    created: 1,
    model: 'grader-model',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 50, completion_tokens: 1, total_tokens: 51 },
  });
}

beforeAll(async () => {
  grader = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const parsed = JSON.parse(body) as (typeof graded)[number];
      graded.push(parsed);
      const chatty = parsed.messages.some((message) => message.content.includes('REFERENCE:\nchatty'));
      response.writeHead(200, { 'content-type': 'application/json' }).end(completion(chatty ? 'Grade: 7' : '7'));
    });
  });
  await new Promise<void>((resolve) => grader.listen(0, '127.0.0.1', resolve));
  const prompts = writePrompts(directory.path, 'support.jsonl', [
    { question: 'How do I reset my password?', reference: MOCK_REFERENCE },
    { question: 'Can I change my plan?', reference: 'chatty' },
  ]);
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
  grader-host: { provider: openai-compatible, base_url: "http://127.0.0.1:${(grader.address() as AddressInfo).port}/v1", api_key: grader-key }
routes:
  support:
    targets: [{ connection: mock-openai, model: gpt-support }]
  grader:
    retries: 0
    targets: [{ connection: grader-host, model: grader-model }]
canaries:
  support: { interval_s: 0, prompts: "${prompts}", scorer: { grader_route: grader }, baseline: 0.9, max_drop: 0.1 }
`);
});
afterAll(async () => {
  await gateway.close();
  await new Promise<void>((resolve) => grader.close(() => resolve()));
  directory.remove();
});

it("a grader-route canary asks the second route for a 0-10 grade of each answer and scores grade / 10, a grade it cannot read as 0", async () => {
  const run = await runCanary(gateway.url, 'support');
  expect(run.prompts).toEqual([
    { index: 0, score: 0.7, served: 'mock-openai/gpt-support', request_id: expect.any(String), grader_request_id: expect.any(String) },
    {
      index: 1,
      score: 0,
      served: 'mock-openai/gpt-support',
      request_id: expect.any(String),
      grader_request_id: expect.any(String),
      error: 'grading failed: the grader answered "Grade: 7", not one number from 0 to 10',
    },
  ]);
  expect(run).toMatchObject({ score: 0.35, baseline: 0.9, threshold: 0.8, dropped: true });

  // The grader was shown the question, the reference and the scored route's answer.
  expect(graded).toHaveLength(2);
  expect(graded[0]!.model).toBe('grader-model');
  const asked = graded[0]!.messages.map((message) => message.content).join('\n');
  expect(asked).toContain('QUESTION:\nuser: How do I reset my password?');
  expect(asked).toContain(`REFERENCE:\n${MOCK_REFERENCE}`);
  expect(asked).toContain(`ANSWER:\n${MOCK_REFERENCE}`);
  expect(gateway.mock.attemptsFor('gpt-support')).toHaveLength(2);

  const graderRecord = await fetchRecord(gateway.url, run.prompts[0]!.grader_request_id!);
  expect(graderRecord).toMatchObject({ origin: 'canary', route: 'grader', status: 'ok', served: { connection: 'grader-host', model: 'grader-model' } });
});
