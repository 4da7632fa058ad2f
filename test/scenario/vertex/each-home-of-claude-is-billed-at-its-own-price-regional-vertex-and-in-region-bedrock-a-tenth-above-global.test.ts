import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat } from '../../support/start-gateway.js';
import { fetchRecord } from '../scenario-helpers.js';
import { startVertexGateway, type VertexGateway } from './vertex-gateway.js';

/**
 * One model, priced at each home's own rate (docs/keys-and-budgets.md, home prices): for Claude
 * Sonnet 4.5, Vertex's regional endpoints and Bedrock's in-region profiles cost 10 % more than
 * the global ones. Each record's cost is compared with its own usage at the catalog's list price
 * ($3 in, $15 out per million tokens): the homes' wires count a prompt slightly differently.
 */
const ROUTES = {
  'vertex-regional': { connection: 'vertex', model: 'claude-sonnet-4-5@20250929' },
  'vertex-global': { connection: 'vertex-global', model: 'claude-sonnet-4-5@20250929' },
  'bedrock-in-region': { connection: 'bedrock', model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' },
  'bedrock-global': { connection: 'bedrock', model: 'global.anthropic.claude-sonnet-4-5-20250929-v1:0' },
  anthropic: { connection: 'anthropic', model: 'claude-sonnet-4-5-20250929' },
} as const;

let vx: VertexGateway;

beforeAll(async () => {
  vx = await startVertexGateway(
    [
      'connections:',
      '  vertex-global: { provider: vertex, project: switchyard-test, location: global, base_url: "MOCK_ROOT/v1", credentials_json: "${env:VERTEX_SA_KEY}" }',
      '  bedrock: { provider: bedrock, region: us-east-1, api_key: bedrock-test-key, base_url: "MOCK_ROOT" }',
      '  anthropic: { provider: mock, dialect: anthropic }',
      'routes:',
      ...Object.entries(ROUTES).map(([route, { connection, model }]) => `  ${route}: { targets: [{ connection: ${connection}, model: "${model}" }] }`),
    ].join('\n'),
    { mockRootPlaceholder: 'MOCK_ROOT' },
  );
});
afterAll(() => vx.close());

/** Long enough that the cost's rounding to the micro-dollar is far below the 10 % told apart. */
const PROMPT = 'Tell me about the homes of one model. '.repeat(100);

/** The record's cost ÷ what its usage costs at the list price. */
async function priceFactorOf(route: keyof typeof ROUTES): Promise<number> {
  const response = await postChat(vx.gateway.url, { model: route, messages: [{ role: 'user', content: PROMPT }], max_tokens: 16 });
  expect(response.status, route).toBe(200);
  const record = await fetchRecord(vx.gateway.url, response.headers.get('x-request-id')!);
  const { input_tokens: input, output_tokens: output } = record.usage!;
  expect(input, route).toBeGreaterThan(0);
  return record.cost_usd! / ((input * 3 + output * 15) / 1e6);
}

it('Anthropic, global Vertex and a global Bedrock profile cost the list price; regional Vertex and an in-region Bedrock profile 1.1 times it', async () => {
  const factors = Object.fromEntries(await Promise.all(Object.keys(ROUTES).map(async (route) => [route, Math.round((await priceFactorOf(route as keyof typeof ROUTES)) * 100) / 100])));
  expect(factors).toEqual({ anthropic: 1, 'vertex-global': 1, 'bedrock-global': 1, 'vertex-regional': 1.1, 'bedrock-in-region': 1.1 });
});
