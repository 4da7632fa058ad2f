import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, fetchRecord, hello, metricValue, metricsText } from '../scenario-helpers.js';
import { loggerInto } from '../../support/captured-log.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';

// What the Python `anthropic` SDK sends on `messages.stream()` and `create(stream=True)`.
const UNREADABLE_HINTS = { 'x-stainless-timeout': 'NOT_GIVEN', 'x-stainless-retry-count': 'NOT_GIVEN', 'x-stainless-arch': 'NOT_GIVEN' };

const logLines: string[] = [];
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(
    `
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
routes:
  chat: { targets: [{ connection: mock-anthropic, model: claude-hinted }] }
`,
    { logger: loggerInto(logLines, 'debug') },
  );
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

const ENDPOINTS = {
  'chat completions': { path: '/v1/chat/completions', body: { model: 'chat', messages: hello } },
  'messages': { path: '/v1/messages', body: { model: 'chat', max_tokens: 16, messages: hello } },
} as const;

async function post(endpoint: keyof typeof ENDPOINTS, stream: boolean, headers: Record<string, string>): Promise<{ response: Response; text: string }> {
  const { path, body } = ENDPOINTS[endpoint];
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ ...body, stream }),
    signal: AbortSignal.timeout(15_000),
  });
  return { response, text: await response.text() };
}

function debugLinesFor(requestId: string): { header: string; value: string; level: number }[] {
  return logLines
    .map((line) => JSON.parse(line) as { request_id?: string; header: string; value: string; level: number })
    .filter((entry) => entry.request_id === requestId && entry.header !== undefined);
}

describe.each(Object.keys(ENDPOINTS) as (keyof typeof ENDPOINTS)[])('%s', (endpoint) => {
  it.each([false, true])('stream %s: unreadable x-stainless-* values are ignored with a debug line each, and the request is served', async (stream) => {
    const { response, text } = await post(endpoint, stream, UNREADABLE_HINTS);
    expect(response.status, text).toBe(200);
    // The answer's last word (the mock answers w0 … w7), in either dialect, streamed or not.
    expect(text).toContain('w7');
    expect(gateway.mock.attemptsFor('claude-hinted')).toHaveLength(1);

    const requestId = response.headers.get('x-request-id')!;
    expect(debugLinesFor(requestId)).toEqual([
      expect.objectContaining({ level: 20, header: 'x-stainless-timeout', value: 'NOT_GIVEN' }),
      expect.objectContaining({ level: 20, header: 'x-stainless-retry-count', value: 'NOT_GIVEN' }),
    ]);
    // No deadline of the SDK's: the route's own, as without the header.
    const record = await fetchRecord(gateway.url, requestId);
    expect(record.deadline_ms).toBeGreaterThan(60_000);
  });
});

it('an unreadable x-stainless-retry-count counts no caller retry; a readable x-stainless-timeout still sets the deadline', async () => {
  const before = metricValue(await metricsText(gateway.url), 'switchyard_caller_retries_total', { route: 'chat' }) ?? 0;
  const { response } = await post('messages', true, { 'x-stainless-timeout': '30', 'x-stainless-retry-count': 'NOT_GIVEN' });
  expect(response.status).toBe(200);
  expect(metricValue(await metricsText(gateway.url), 'switchyard_caller_retries_total', { route: 'chat' }) ?? 0).toBe(before);
  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  expect(record.deadline_ms).toBeLessThanOrEqual(30_000);
  expect(record.deadline_ms).toBeGreaterThan(29_000);
});

describe.each([
  ['x-request-timeout-ms', 'NOT_GIVEN'],
  ['x-deadline-ms', 'soon'],
  ['x-request-timeout-ms', '-1'],
])("the gateway's own deadline header %s: %s", (header, value) => {
  it.each(Object.keys(ENDPOINTS) as (keyof typeof ENDPOINTS)[])('is still a 400 naming it, on %s, before any provider', async (endpoint) => {
    const { response, text } = await post(endpoint, true, { [header]: value });
    expect(response.status).toBe(400);
    expect(text).toContain(`Header ${header} must be a positive number.`);
    expect(gateway.mock.attempts).toHaveLength(0);
  });
});
