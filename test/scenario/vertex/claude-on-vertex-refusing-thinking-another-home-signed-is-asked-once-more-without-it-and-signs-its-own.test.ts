import { afterAll, beforeAll, expect, it } from 'vitest';
import { fetchRecord } from '../scenario-helpers.js';
import { startVertexGateway, type VertexGateway } from './vertex-gateway.js';

/**
 * Vertex is a home of Claude like the others (docs/lifecycle.md, "Thinking signed by another
 * home"): a history carrying Anthropic-signed thinking that fails over to Vertex is refused there,
 * asked once more without the earlier thinking, and answered with thinking Vertex signed itself.
 */
let vx: VertexGateway;

beforeAll(async () => {
  vx = await startVertexGateway(`
connections:
  anthropic: { provider: mock, dialect: anthropic }
routes:
  claude:
    retries: 0
    targets:
      - { connection: anthropic, model: "claude-sonnet-4-5?status=529" }
      - { connection: vertex, model: "claude-sonnet-4-5@20250929" }
`);
});
afterAll(() => vx.close());

it('Anthropic overloaded → Vertex refuses the Anthropic-signed thinking → asked again without it: one answer, thinking_dropped on that attempt', async () => {
  const response = await fetch(`${vx.gateway.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'claude',
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [
        { role: 'user', content: 'Plan a route from A to B.' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'The toll road is shorter.', signature: 'mock-signed-by-anthropic.1' }, { type: 'text', text: 'Take the toll road.' }] },
        { role: 'user', content: 'Now avoid tolls.' },
      ],
    }),
    signal: AbortSignal.timeout(15_000),
  });
  const body = (await response.json()) as { content: { type: string; signature?: string }[] };
  expect(response.status, JSON.stringify(body)).toBe(200);
  expect(body.content[0]).toMatchObject({ type: 'thinking', signature: expect.stringMatching(/^mock-signed-by-vertex\./) });

  const record = await fetchRecord(vx.gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts.map((attempt) => [attempt.connection, attempt.kind, attempt.thinking_dropped ?? false])).toEqual([
    ['anthropic', 'server_error', false],
    ['vertex', 'invalid_request', false],
    ['vertex', 'ok', true],
  ]);
  const [refused, answered] = vx.vertex.attempts.map((attempt) => JSON.stringify(attempt.body));
  expect(refused).toContain('mock-signed-by-anthropic.1');
  expect(answered).not.toContain('mock-signed-by-anthropic.1');
});
