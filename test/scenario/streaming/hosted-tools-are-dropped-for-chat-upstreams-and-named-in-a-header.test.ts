import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  via-openai: { targets: [{ connection: mock-openai, model: "gpt-tools?tool_call=crm__lookup" }] }
  via-anthropic: { targets: [{ connection: mock-anthropic, model: "claude-tools?tool_call=crm__lookup" }] }
`);
});
afterAll(() => gateway.close());

// What Codex-like clients send: a function, hosted tools, and a namespace group holding a custom tool.
const tools = [
  { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
  { type: 'web_search' },
  { type: 'mcp', server_label: 'docs', server_url: 'https://mcp.example/sse' },
  {
    type: 'namespace',
    name: 'crm',
    description: 'The customer database.',
    tools: [
      { type: 'function', name: 'lookup', description: 'Find a customer.', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
      { type: 'custom', name: 'free_text' },
    ],
  },
];

describe.each([
  ['via-openai', 'gpt-tools'],
  ['via-anthropic', 'claude-tools'],
])('%s', (route, model) => {
  it('drops the tools the target cannot run, names them in x-switchyard-dropped-tools, and flattens the namespace', async () => {
    const response = await fetch(`${gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: route, input: 'Find the customer in Paris', tools }),
      signal: AbortSignal.timeout(10_000),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-switchyard-dropped-tools')).toBe('web_search, mcp, crm.custom');

    const sent = gateway.mock.attemptsFor(model).at(-1)!.body as { tools: Record<string, unknown>[] };
    const names = sent.tools.map((tool) => (tool.function as { name?: string } | undefined)?.name ?? tool.name);
    expect(names).toEqual(['get_weather', 'crm__lookup']);
    expect(JSON.stringify(sent.tools)).toContain('The customer database.\\n\\nFind a customer.');

    // The call to the flattened name comes back as the caller declared it.
    const answer = (await response.json()) as { output: Record<string, unknown>[] };
    expect(answer.output).toMatchObject([{ type: 'function_call', name: 'lookup', namespace: 'crm' }]);
  });
});

it('a request with no tool to drop carries no such header', async () => {
  const response = await fetch(`${gateway.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'via-openai', input: 'hi', tools: tools.slice(0, 1) }),
    signal: AbortSignal.timeout(10_000),
  });
  expect(response.status).toBe(200);
  expect(response.headers.has('x-switchyard-dropped-tools')).toBe(false);
});
