/**
 * The mock's Vertex answers against the samples in test/contract/vertex/__fixtures__/: every field a sample
 * has, the mock's answer has too, with the same JSON type (arrays compared by their first item).
 * Fields the mock leaves out on purpose are listed with why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockProvider, type MockProvider } from '../../src/mock/mock-provider.js';
import { readFixture, readFixtureJson } from '../support/fixtures.js';
import { geminiBody, geminiChunks, parseFrames, postJson, postTokenGrant, readBody, serviceAccountAssertion, vertexAuthorization, vertexClaudeBody, vertexPath } from './helpers.js';

function fixture(name: string): string {
  return readFixture('vertex', name);
}

function json(name: string): unknown {
  return readFixtureJson('vertex', name);
}

/** `path: type` for every field, depth first; arrays by their first item, as `path[]`. */
function shape(value: unknown, path = '$', into: Set<string> = new Set()): Set<string> {
  const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  into.add(`${path}: ${type}`);
  if (Array.isArray(value) && value.length > 0) shape(value[0], `${path}[]`, into);
  else if (type === 'object') for (const [key, field] of Object.entries(value as object)) shape(field, `${path}.${key}`, into);
  return into;
}

/** The sample's fields that the mock's answer lacks or types otherwise, minus those left out on purpose. */
function missing(sample: unknown, answer: unknown, leftOut: readonly string[] = []): string[] {
  const answered = shape(answer);
  return [...shape(sample)].filter((field) => !answered.has(field) && !leftOut.some((prefix) => field.startsWith(prefix)));
}

let mock: MockProvider;
let auth: Record<string, string>;

beforeAll(async () => {
  mock = await startMockProvider();
  auth = await vertexAuthorization(mock.url);
});

afterAll(async () => {
  await mock.close();
});

async function post(path: string, body: Record<string, unknown>): Promise<Response> {
  return postJson(`${mock.url}${path}`, body, { headers: auth });
}

// The mock thinks in text only, so it reports no reasoning tokens.
const noThinking = ['$.usageMetadata.thoughtsTokenCount'];

describe('the mock against the Vertex samples', () => {
  it('answers rawPredict as the Claude samples are shaped', async () => {
    const answer = await (await post(vertexPath('anthropic', 'claude-opus-4-6', 'rawPredict'), vertexClaudeBody())).json();
    expect(missing(json('claude-rawPredict-response-text.json'), answer)).toEqual([]);
    expect(missing(json('claude-rawPredict-response-text-dated-model.json'), answer)).toEqual([]);
  });

  it('streams streamRawPredict events shaped as the sample\'s', async () => {
    const read = await readBody(await post(vertexPath('anthropic', 'claude-opus-4-6', 'streamRawPredict'), vertexClaudeBody()));
    const answered = parseFrames(read.text);
    for (const frame of parseFrames(fixture('claude-streamRawPredict-text.sse'))) {
      const same = answered.find((candidate) => candidate.event === frame.event);
      expect(same, frame.event).toBeDefined();
      expect(missing(JSON.parse(frame.data), JSON.parse(same!.data)), frame.event).toEqual([]);
    }
  });

  it('answers generateContent as the Gemini sample is shaped', async () => {
    const answer = await (await post(vertexPath('google', 'gemini-3-flash-preview', 'generateContent'), geminiBody())).json();
    expect(missing(json('gemini-generateContent-response-text.json'), answer, noThinking)).toEqual([]);
  });

  it('streams chunks shaped as the sample\'s: counts only at the finish', async () => {
    const read = await readBody(await post(vertexPath('google', 'gemini-2.5-flash', 'streamGenerateContent?alt=sse'), geminiBody()));
    const answered = geminiChunks(read.text).map((chunk) => JSON.parse(chunk) as unknown);
    const sample = fixture('gemini-streamGenerateContent-text-trimmed.sse')
      .split('\n\n')
      .filter((event) => event.startsWith('data: '))
      .map((event) => JSON.parse(event.slice('data: '.length)) as unknown);
    expect(missing(sample[1], answered[1])).toEqual([]);
    expect(missing(sample.at(-1), answered.at(-1))).toEqual([]);
  });

  it('answers :predict as the embeddings sample is shaped', async () => {
    const answer = await (await post(vertexPath('google', 'text-embedding-005', 'predict'), { instances: [{ content: 'What is the capital of France?' }] })).json();
    expect(missing(json('predict-response-text-multilingual-embedding-002.json'), answer)).toEqual([]);
  });

  it('answers errors as the error samples are shaped', async () => {
    const claudeQuota = await (await post(vertexPath('anthropic', 'claude-opus-4@20250514?status=429', 'rawPredict'), vertexClaudeBody())).json();
    expect(missing(json('errors/429-claude-input-tokens-per-minute.json'), claudeQuota)).toEqual([]);
    const geminiQuota = await (await post(vertexPath('google', 'gemini-2.5-flash?status=429', 'generateContent'), geminiBody())).json();
    expect(missing(json('errors/429-gemini-resource-exhausted-shared-quota.json'), geminiQuota)).toEqual([]);
    const perDay = await (await post(vertexPath('anthropic', 'claude-sonnet-4-5@20250929?error=spend_cap&retry_after=26', 'rawPredict'), vertexClaudeBody())).json();
    expect(missing(json('errors/429-claude-per-day-quota-with-details.json'), perDay)).toEqual([]);
    const badVersion = await (await post(vertexPath('anthropic', 'claude-opus-4-6', 'rawPredict'), vertexClaudeBody({ anthropic_version: undefined }))).json();
    expect(missing(json('errors/400-claude-anthropic-version-missing.json'), badVersion)).toEqual([]);
    const extraInput = await (await post(vertexPath('anthropic', 'claude-opus-4-6', 'rawPredict'), vertexClaudeBody({ model: 'claude-opus-4-6' }))).json();
    // The same refusal also comes without a request id (anthropics/claude-code#37746), as the mock sends it.
    expect(missing(json('errors/400-claude-extra-input.json'), extraInput, ['$.request_id'])).toEqual([]);
    const badGemini = await (await post(vertexPath('google', 'gemini-2.5-flash?status=400', 'generateContent'), geminiBody())).json();
    expect(missing(json('errors/400-gemini-invalid-argument-schema.json'), badGemini)).toEqual([]);
    const unauthenticated = await (await postJson(`${mock.url}${vertexPath('google', 'gemini-2.5-flash', 'generateContent')}`, geminiBody())).json();
    expect(missing(json('errors/401-unauthenticated-api-key.json'), unauthenticated)).toEqual([]);
  });

  it('answers the token endpoint as the token samples are shaped', async () => {
    const tokenUri = `${mock.url}/token`;
    const issued = await (await postTokenGrant(tokenUri, serviceAccountAssertion(tokenUri))).json();
    expect(missing(json('token-response.json'), issued)).toEqual([]);
    const refused = await (await postTokenGrant(`${tokenUri}?refuse=invalid_grant`, serviceAccountAssertion(tokenUri))).json();
    expect(missing(json('token-error-invalid-grant.json'), refused)).toEqual([]);
  });
});
