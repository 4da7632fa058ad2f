import { afterAll, beforeAll, expect, it } from 'vitest';
import { deploymentHealth } from '../health-helpers.js';
import { fetchRecord } from '../scenario-helpers.js';
import { startVertexGateway, type VertexGateway } from './vertex-gateway.js';

/**
 * Claude's three homes as one model (docs/providers.md, "One model, three homes"): a route over
 * Anthropic's API, Vertex and Bedrock infers no model change between them, and when the first two
 * fail the caller gets one answer from the third, its prompt-cache markers kept on every home.
 */
const ANTHROPIC = 'claude-sonnet-4-5-20250929';
const VERTEX = 'claude-sonnet-4-5@20250929';
const BEDROCK = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

let vx: VertexGateway;

beforeAll(async () => {
  vx = await startVertexGateway(`
connections:
  anthropic: { provider: mock, dialect: anthropic }
  bedrock: { provider: mock, dialect: bedrock }
routes:
  claude:
    retries: 0
    targets:
      - { connection: anthropic, model: "${ANTHROPIC}?status=529" }
      - { connection: vertex, model: "${VERTEX}?status=503" }
      - { connection: bedrock, model: "${BEDROCK}" }
`);
});
afterAll(() => vx.close());

const SYSTEM = 'You are a careful assistant. '.repeat(200);

it('Anthropic → Vertex → Bedrock: one answer, every home sent the cache markers, no model change inferred', async () => {
  const response = await fetch(`${vx.gateway.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({
      model: 'claude',
      max_tokens: 64,
      system: [{ type: 'text', text: SYSTEM, cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello', cache_control: { type: 'ephemeral' } }] }],
    }),
    signal: AbortSignal.timeout(15_000),
  });
  const body = (await response.json()) as { type: string; content: { type: string; text: string }[] };
  expect(response.status).toBe(200);
  expect(body.type).toBe('message');
  expect(body.content[0]!.text).not.toBe('');
  expect(response.headers.get('x-switchyard-served-by')).toBe(`bedrock/${BEDROCK}`);

  const record = await fetchRecord(vx.gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts.map((attempt) => [attempt.connection, attempt.kind])).toEqual([
    ['anthropic', 'server_error'],
    ['vertex', 'server_error'],
    ['bedrock', 'ok'],
  ]);

  // Anthropic's API and Vertex get the markers as the caller wrote them; Bedrock as cache points.
  const [anthropic] = vx.gateway.mock.attempts.filter((attempt) => attempt.dialect === 'anthropic');
  const [vertex] = vx.vertex.attempts;
  for (const sent of [anthropic!.body, vertex!.body] as { system: { cache_control?: unknown }[]; messages: { content: { cache_control?: unknown }[] }[] }[]) {
    expect(sent.system[0]!.cache_control).toEqual({ type: 'ephemeral' });
    expect(sent.messages[0]!.content[0]!.cache_control).toEqual({ type: 'ephemeral' });
  }
  const [bedrock] = vx.gateway.mock.attempts.filter((attempt) => attempt.dialect === 'bedrock');
  const bedrockBody = bedrock!.body as { system: Record<string, unknown>[]; messages: { content: Record<string, unknown>[] }[] };
  expect(bedrockBody.system.some((block) => 'cachePoint' in block)).toBe(true);
  expect(bedrockBody.messages[0]!.content.some((block) => 'cachePoint' in block)).toBe(true);

  for (const deployment of [`vertex/${VERTEX}?status=503`, `bedrock/${BEDROCK}`]) {
    expect((await deploymentHealth(vx.gateway.url, deployment)).model_change, deployment).toEqual({ claude: { value: false, inferred: true } });
  }
});
