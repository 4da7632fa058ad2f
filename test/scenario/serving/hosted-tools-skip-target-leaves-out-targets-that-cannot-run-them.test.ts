import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockProvider, type MockProvider } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { fetchRecord } from '../scenario-helpers.js';

// An OpenAI connection on a mock of its own (its /v1/responses), behind an Anthropic target on the gateway's mock.
let upstream: MockProvider;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startMockProvider();
  gateway = await startGateway(`
admin: { token: scenario-admin-token }
${MOCK_CONNECTIONS}
  openai-direct: { provider: openai, api_key: sk-test, base_url: "${upstream.url}/v1" }
routes:
  skipping:
    hosted_tools: skip_target
    targets:
      - { connection: mock-anthropic, model: claude-first }
      - { connection: openai-direct, model: gpt-second }
  dropping:
    targets:
      - { connection: mock-anthropic, model: claude-first }
      - { connection: openai-direct, model: gpt-second }
  anthropic-only:
    hosted_tools: skip_target
    targets:
      - { connection: mock-anthropic, model: claude-only }
`);
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.reset();
  gateway.mock.reset();
});

const hostedTools = [{ type: 'web_search' }, { type: 'function', name: 'lookup', parameters: { type: 'object' } }];

async function create(model: string, tools?: unknown[]): Promise<Response> {
  return fetch(`${gateway.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, input: 'Search the news', ...(tools ? { tools } : {}) }),
    signal: AbortSignal.timeout(10_000),
  });
}

describe('hosted_tools: skip_target', () => {
  it('leaves the Anthropic target out of the plan; the OpenAI target runs the hosted tool and nothing is named dropped', async () => {
    const response = await create('skipping', hostedTools);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-switchyard-served-by')).toBe('openai-direct/gpt-second');
    expect(response.headers.get('x-switchyard-attempts')).toBe('1');
    expect(response.headers.get('x-switchyard-dropped-tools')).toBeNull();
    expect(gateway.mock.attemptsFor('claude-first')).toHaveLength(0);
    const sent = upstream.attemptsFor('gpt-second')[0]!.body as { tools: unknown[] };
    expect(sent.tools).toEqual(hostedTools);
    const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
    expect(record.dropped_tools).toBeUndefined();
  });

  it('a request without hosted tools is planned as usual', async () => {
    const response = await create('skipping');
    expect(response.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/claude-first');
  });

  it('with no target that can run them, the request is refused before any provider', async () => {
    const response = await create('anthropic-only', hostedTools);
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error).toMatchObject({ code: 'model_not_supported', message: "No target of model 'anthropic-only' serves hosted tools (hosted_tools: skip_target)." });
    expect(gateway.mock.attemptsFor('claude-only')).toHaveLength(0);
  });
});

it('hosted_tools: drop (the default) serves from the Anthropic target without them, named in the header and the record', async () => {
  const response = await create('dropping', hostedTools);
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/claude-first');
  expect(response.headers.get('x-switchyard-dropped-tools')).toBe('web_search');
  const sent = gateway.mock.attemptsFor('claude-first')[0]!.body as { tools: { name: string }[] };
  expect(sent.tools.map((tool) => tool.name)).toEqual(['lookup']);
  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  expect(record.dropped_tools).toEqual(['web_search']);
});
