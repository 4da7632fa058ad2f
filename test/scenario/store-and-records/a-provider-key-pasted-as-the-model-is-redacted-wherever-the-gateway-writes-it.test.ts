import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, fetchRecord, hello, metricsText } from '../scenario-helpers.js';
import { loggerInto } from '../../support/captured-log.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';

// Made-up keys in each provider's shape; the tail of each is what must never show up.
const KEYS = {
  'OpenAI': `sk-${'Q7wErTy9'.repeat(6)}`,
  'OpenAI project': `sk-proj-${'Zx8Cv_Bn-4'.repeat(8)}`,
  'Anthropic': `sk-ant-api03-${'Pl0Km9Jn'.repeat(11)}AA`,
  'Google': `AIzaSy${'Dq3Wf5Gh7Jk9'.repeat(3)}`,
};
const TAILS = Object.values(KEYS).map((key) => key.slice(-16));

const logLines: string[] = [];
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(
    `
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
routes:
  plain: { targets: [{ connection: mock-openai, model: gpt-plain }] }
`,
    { logger: loggerInto(logLines) },
  );
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

const ENDPOINTS = {
  'chat completions': (model: string) => ({ path: '/v1/chat/completions', body: { model, messages: hello } }),
  'messages': (model: string) => ({ path: '/v1/messages', body: { model, max_tokens: 16, messages: hello } }),
  'responses': (model: string) => ({ path: '/v1/responses', body: { model, input: 'hi' } }),
} as const;

async function post(endpoint: keyof typeof ENDPOINTS, model: string): Promise<{ response: Response; text: string }> {
  const { path, body } = ENDPOINTS[endpoint](model);
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  return { response, text: await response.text() };
}

function expectNoKeyIn(text: string): void {
  for (const tail of TAILS) expect(text).not.toContain(tail);
}

describe.each(Object.entries(KEYS))('a %s key sent as the model', (_provider, key) => {
  describe.each([
    ['as it is', key],
    ['in the connection/model form', `mock-openai/${key}`],
  ])('%s', (_form, model) => {
    it.each(Object.keys(ENDPOINTS) as (keyof typeof ENDPOINTS)[])(
      'to %s is a 404 model_not_found that quotes it redacted, reaches no provider, and is recorded redacted',
      async (endpoint) => {
        const { response, text } = await post(endpoint, model);
        expect(response.status).toBe(404);
        expect(text).toContain('model_not_found');
        expect(text).toContain(model.replace(key, '[redacted]'));
        expect(text).toContain('It looks like an API key');
        expectNoKeyIn(text);
        expect(gateway.mock.attempts).toHaveLength(0);

        const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
        expect(record).toMatchObject({ status: 'rejected', http_status: 404, error_code: 'model_not_found', route: null });
        expect(record.model_requested).toBe(model.replace(key, '[redacted]'));
        expectNoKeyIn(JSON.stringify(record));
      },
    );
  });

  it('to GET /v1/models/{id} is a 404 that quotes it redacted', async () => {
    const response = await fetch(`${gateway.url}/v1/models/${encodeURIComponent(key)}`, { signal: AbortSignal.timeout(15_000) });
    expect(response.status).toBe(404);
    const text = await response.text();
    expect(text).toContain('`[redacted]`');
    expectNoKeyIn(text);
  });
});

it('after all of the above, neither /metrics nor any log line holds a trace of a key', async () => {
  expectNoKeyIn(await metricsText(gateway.url));
  // The log did see those requests: one request line each, their model redacted.
  const requestLines = logLines.filter((line) => line.includes('"msg":"request"') && line.includes('model_not_found'));
  expect(requestLines.length).toBeGreaterThanOrEqual(Object.keys(KEYS).length * 2 * Object.keys(ENDPOINTS).length);
  expect(requestLines.every((line) => line.includes('[redacted]'))).toBe(true);
  expectNoKeyIn(logLines.join(''));
});

it('served by a catch-all alias, it is answered, and the record and the log name the model redacted', async () => {
  const lines: string[] = [];
  const catchAll = await startGateway(
    `
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
routes:
  anything: { aliases: ["*"], targets: [{ connection: mock-openai, model: gpt-anything }] }
`,
    { logger: loggerInto(lines) },
  );
  try {
    const response = await fetch(`${catchAll.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: KEYS['OpenAI project'], messages: hello }),
      signal: AbortSignal.timeout(15_000),
    });
    expect(response.status).toBe(200);
    await response.text();
    const record = await fetchRecord(catchAll.url, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({ status: 'ok', model_requested: '[redacted]', route: 'anything', served: { model: 'gpt-anything' } });
    expect(lines.filter((line) => line.includes('"msg":"request"'))).toEqual([expect.stringContaining('"model_requested":"[redacted]"')]);
    expectNoKeyIn(JSON.stringify(record) + (await metricsText(catchAll.url)) + lines.join(''));
  } finally {
    await catchAll.close();
  }
});
