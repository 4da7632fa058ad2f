import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockProvider, type MockProvider } from '../../src/mock/mock-provider.js';
import { postJson, vertexAuthorization, vertexClaudeBody, vertexPath } from './helpers.js';

let mock: MockProvider;
let nowMs = Date.UTC(2026, 0, 1);

beforeAll(async () => {
  mock = await startMockProvider({ clock: () => nowMs });
});

afterAll(async () => {
  await mock.close();
});

interface GoogleError {
  error: { code: number; status: string; message: string; details: { reason: string; metadata: Record<string, string> }[] };
}

async function rawPredict(headers: Record<string, string>, model = 'claude-sonnet-4-5@20250929'): Promise<{ status: number; body: unknown }> {
  const response = await postJson(`${mock.url}${vertexPath('anthropic', model, 'rawPredict')}`, vertexClaudeBody(), { headers });
  return { status: response.status, body: await response.json() };
}

describe('a Vertex route', () => {
  it('answers a live token the token endpoint issued, and records which token it was, never the token', async () => {
    const headers = await vertexAuthorization(mock.url);
    const answer = await rawPredict(headers, 'claude-auth-ok@1');
    expect(answer.status).toBe(200);
    const [attempt] = mock.attemptsFor('claude-auth-ok@1');
    expect(attempt).toMatchObject({ home: 'vertex', dialect: 'anthropic', outcome: 'ok' });
    expect(attempt!.headers.authorization).toMatch(/^Bearer \[token \d+\]$/);
    expect(JSON.stringify(mock.attempts)).not.toContain(headers.authorization!.slice('Bearer '.length));
  });

  it.each([
    ['no token', {}, 'CREDENTIALS_MISSING', /missing required authentication credential/],
    ['a token it never issued', { authorization: 'Bearer ya29.made-up' }, 'ACCESS_TOKEN_TYPE_UNSUPPORTED', /invalid authentication credentials/],
  ])('refuses %s with a google.rpc 401 UNAUTHENTICATED', async (_, headers: Record<string, string>, reason, message) => {
    const answer = await rawPredict(headers);
    expect(answer.status).toBe(401);
    const body = answer.body as GoogleError;
    expect(body.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED', message: expect.stringMatching(message) as unknown });
    expect(body.error.details[0]).toMatchObject({
      reason,
      metadata: { method: 'google.cloud.aiplatform.v1.PredictionService.RawPredict', service: 'aiplatform.googleapis.com' },
    });
  });

  it('refuses a token once it has expired by the mock clock', async () => {
    const headers = await vertexAuthorization(mock.url, '?expires_in=60');
    expect((await rawPredict(headers)).status).toBe(200);
    nowMs += 60_000;
    const expired = await rawPredict(headers);
    expect(expired.status).toBe(401);
    expect((expired.body as GoogleError).error.details[0]!.reason).toBe('ACCESS_TOKEN_EXPIRED');
  });

  it('checks the token on Gemini paths too, before the body', async () => {
    const response = await postJson(`${mock.url}${vertexPath('google', 'gemini-2.5-flash', 'generateContent')}`, 'not json');
    expect(response.status).toBe(401);
  });
});
