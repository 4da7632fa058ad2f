import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  slow-first-token:
    targets: [{ connection: mock-openai, model: "slow?first_token_ms=400" }]
  inband-error-first:
    retries: 0
    targets:
      - { connection: mock-openai, model: "overloaded-openai?inband_error=overloaded" }
      - { connection: mock-anthropic, model: "overloaded-anthropic?inband_error=overloaded" }
      - { connection: mock-openai, model: standby }
  silent-first-token:
    timeouts: { first_token_ms: 300 }
    targets:
      - { connection: mock-anthropic, model: "silent?first_token_ms=5000" }
      - { connection: mock-openai, model: standby }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

async function streamFrom(model: string) {
  const startedAt = performance.now();
  const response = await request(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  const headersAfterMs = performance.now() - startedAt;
  const body = await response.body.text();
  return { response, headersAfterMs, body };
}

function contentOf(body: string): string {
  return body
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => (JSON.parse(line.slice(6)) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '')
    .join('');
}

describe('the streaming commit point', () => {
  it('sends no status line or headers until the first content event is ready', async () => {
    // The mock sends its headers and role chunk at once, then waits 400 ms for the first token.
    const { response, headersAfterMs, body } = await streamFrom('slow-first-token');
    expect(response.statusCode).toBe(200);
    expect(headersAfterMs).toBeGreaterThanOrEqual(350);
    expect(contentOf(body)).toBe(mockAnswerText(8));
  });

  it('fails over invisibly when a 200 stream reports an error before any content (both dialects)', async () => {
    const { response, body } = await streamFrom('inband-error-first');
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-switchyard-served-by']).toBe('mock-openai/standby');
    expect(response.headers['x-switchyard-attempts']).toBe('3');
    expect(body).not.toContain('"error"');
    expect(contentOf(body)).toBe(mockAnswerText(8));
    expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(gateway.mock.attemptsFor('overloaded-openai')).toHaveLength(1);
    expect(gateway.mock.attemptsFor('overloaded-anthropic')).toHaveLength(1);
  });

  it('moves on when the first token does not come within first_token_ms, and the caller sees one clean answer', async () => {
    const { response, headersAfterMs, body } = await streamFrom('silent-first-token');
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-switchyard-served-by']).toBe('mock-openai/standby');
    // Headers not before first_token_ms (nothing is sent before the commit point); served-by says the standby answered.
    expect(headersAfterMs).toBeGreaterThanOrEqual(250);
    expect(contentOf(body)).toBe(mockAnswerText(8));
    expect(gateway.mock.attemptsFor('silent')).toHaveLength(1);
  });
});
