import { describe, expect, it } from 'vitest';
import { vertexClaudeAdapter, vertexGeminiAdapter } from '../../../src/providers/vertex/adapter.js';
import type { UpstreamFailure } from '../../../src/providers/spec.js';
import { listFixtures, randomChunkSizes, readErrorFixture, readFixture, readFixtureJson, replaySse, summarizeStream } from '../../support/fixtures.js';

const PROVIDER = 'vertex';
const NOW_MS = Date.parse('2026-03-01T12:00:00Z');

/** What each error sample means to the attempt loop; every sample under errors/ is named here. */
const ERROR_KINDS: Readonly<Record<string, { kind: UpstreamFailure['kind']; retryAfterMs?: number }>> = {
  'errors/400-claude-anthropic-version-missing.json': { kind: 'invalid_request' },
  'errors/400-claude-extra-input.json': { kind: 'invalid_request' },
  'errors/400-claude-invalid-request.json': { kind: 'invalid_request' },
  'errors/400-claude-prompt-too-long.json': { kind: 'context_length' },
  'errors/400-gemini-input-too-long.json': { kind: 'context_length' },
  'errors/400-gemini-invalid-argument.json': { kind: 'invalid_request' },
  'errors/400-gemini-invalid-argument-schema.json': { kind: 'invalid_request' },
  'errors/401-unauthenticated.json': { kind: 'credential' },
  'errors/401-unauthenticated-api-key.json': { kind: 'credential' },
  'errors/403-permission-denied.json': { kind: 'credential' },
  'errors/404-publisher-model-not-found.json': { kind: 'not_found' },
  // Per-minute (and per-region) limits pass; a per-day one lasts until tomorrow whatever RetryInfo says.
  'errors/429-claude-input-tokens-per-minute.json': { kind: 'rate_limit' },
  'errors/429-claude-per-day-quota-with-details.json': { kind: 'quota_exhausted', retryAfterMs: 26_000 },
  'errors/429-claude-requests-per-minute-per-base-model.json': { kind: 'rate_limit' },
  'errors/429-gemini-resource-exhausted-shared-quota.json': { kind: 'rate_limit' },
  'errors/429-per-day-quota-retry-info.json': { kind: 'quota_exhausted', retryAfterMs: 3_600_000 },
  'errors/429-per-minute-quota-retry-info.json': { kind: 'rate_limit', retryAfterMs: 17_500 },
  'errors/503-unavailable.http': { kind: 'server_error', retryAfterMs: 7_000 },
  'errors/529-claude-overloaded.json': { kind: 'server_error' },
};

const OTHER_SAMPLES = [
  'README.md',
  'claude-rawPredict-response-text-dated-model.json',
  'claude-rawPredict-response-text.json',
  'claude-rawPredict-response-tool-use.json',
  'claude-streamRawPredict-text.sse',
  'gemini-generateContent-response-text.json',
  'gemini-streamGenerateContent-function-call.sse',
  'gemini-streamGenerateContent-text-trimmed.sse',
  'predict-response-text-embedding-005.json',
  'predict-response-text-multilingual-embedding-002.json',
  // The token endpoint's answer and refusal: read by the credential's tests (src/credentials/) and the mock's (test/mock/).
  'token-error-invalid-grant.json',
  'token-response.json',
];

describe('Vertex wire samples', () => {
  it('are each named in this test', () => {
    expect(listFixtures(PROVIDER)).toEqual([...Object.keys(ERROR_KINDS), ...OTHER_SAMPLES].sort());
  });

  it.each(Object.entries(ERROR_KINDS))('%s classifies as %j with either publisher', (name, expected) => {
    const { status, headers, body } = readErrorFixture(PROVIDER, name);
    for (const adapter of [vertexClaudeAdapter, vertexGeminiAdapter]) {
      const failure = adapter.parseError(status, headers, body, NOW_MS);
      expect(failure.kind).toBe(expected.kind);
      expect(failure.retryAfterMs).toBe(expected.retryAfterMs);
      expect(failure.message).not.toBe('');
    }
  });

  it('reads an Anthropic error body passed through by Vertex with its Anthropic type', () => {
    const { status, headers, body } = readErrorFixture(PROVIDER, 'errors/529-claude-overloaded.json');
    expect(vertexClaudeAdapter.parseError(status, headers, body, NOW_MS)).toMatchObject({ type: 'overloaded_error', message: 'Overloaded', status: 529 });
  });

  it('reads a google.rpc error with its status name and ErrorInfo reason', () => {
    const { status, headers, body } = readErrorFixture(PROVIDER, 'errors/401-unauthenticated.json');
    expect(vertexClaudeAdapter.parseError(status, headers, body, NOW_MS)).toMatchObject({ type: 'UNAUTHENTICATED', code: 'ACCESS_TOKEN_EXPIRED' });
  });

  it('parses Claude answers as the Messages API answers', () => {
    const text = vertexClaudeAdapter.parseResponse(readFixtureJson(PROVIDER, 'claude-rawPredict-response-text.json'));
    expect(text).toMatchObject({
      id: 'msg_vrtx_01JixAPaKzY8NJ3HE6GPE3ue',
      text: 'Hi there! How are you doing today? Is there anything I can help you with? 😊',
      finishReason: 'stop',
      responseModel: 'claude-opus-4-6',
      usage: { inputTokens: 9, outputTokens: 24 },
    });
    const dated = vertexClaudeAdapter.parseResponse(readFixtureJson(PROVIDER, 'claude-rawPredict-response-text-dated-model.json'));
    expect(dated).toMatchObject({ text: 'Hello! How can I help you today?', finishReason: 'stop', responseModel: 'claude-sonnet-4-5-20250929', usage: { inputTokens: 9, outputTokens: 12 } });
    const tool = vertexClaudeAdapter.parseResponse(readFixtureJson(PROVIDER, 'claude-rawPredict-response-tool-use.json'));
    expect(tool.finishReason).toBe('tool_calls');
    expect(tool.toolCalls).toEqual([{ id: 'toolu_vrtx_01A9sJ4nG1f2Dc3Kq8uWm6Ze', name: 'get_weather', arguments: '{"city":"Paris"}' }]);
    expect(tool.usage).toMatchObject({ cacheReadTokens: 320 });
  });

  it.each([undefined, randomChunkSizes(41)])('streams Claude as the Messages API streams (chunks %j)', async (sizes) => {
    const summary = summarizeStream(await replaySse(readFixture(PROVIDER, 'claude-streamRawPredict-text.sse'), vertexClaudeAdapter, sizes));
    expect(summary).toMatchObject({ text: 'ack', finish: { reason: 'stop', providerReason: 'end_turn' }, errors: [], malformed: [] });
    expect(summary.start).toMatchObject({ id: 'msg_vrtx_011Cf23KmBvy6xNCBR8cRGsH', responseModel: 'claude-sonnet-5' });
    // Input counts the prompt whole: 10 uncached tokens and the 28,804 written to the cache.
    expect(summary.usage).toMatchObject({ inputTokens: 28_814, outputTokens: 4, cacheWriteTokens: 28_804 });
  });

  it('parses Gemini answers, with Vertex fields the Gemini API lacks ignored', () => {
    const result = vertexGeminiAdapter.parseResponse(readFixtureJson(PROVIDER, 'gemini-generateContent-response-text.json'));
    expect(result).toMatchObject({ finishReason: 'stop', responseModel: 'gemini-3-flash-preview' });
    expect(result.text).toMatch(/^\*\*FOMC Meeting Analysis: March 19, 2025\*\*\n/);
    expect(result.usage).toMatchObject({ inputTokens: 8112 });
  });

  it.each([undefined, randomChunkSizes(7)])('streams Gemini, counts only with the finish (chunks %j)', async (sizes) => {
    const summary = summarizeStream(await replaySse(readFixture(PROVIDER, 'gemini-streamGenerateContent-text-trimmed.sse'), vertexGeminiAdapter, sizes));
    expect(summary).toMatchObject({ text: 'Big-O is notation', finish: { reason: 'length' }, errors: [], malformed: [] });
    expect(summary.usage).toMatchObject({ inputTokens: 7, outputTokens: 32 });
  });

  it.each([undefined, randomChunkSizes(13)])('streams a Gemini function call whole, then the finish (chunks %j)', async (sizes) => {
    const summary = summarizeStream(await replaySse(readFixture(PROVIDER, 'gemini-streamGenerateContent-function-call.sse'), vertexGeminiAdapter, sizes));
    expect(summary).toMatchObject({ text: 'I will check status.', errors: [], malformed: [] });
    expect(summary.toolCalls).toMatchObject([{ name: 'shell', arguments: '{"cwd":"/tmp","timeout":30000,"command":"git status"}', ended: true }]);
    expect(summary.finish).toMatchObject({ reason: 'tool_calls' });
    expect(summary.usage).toMatchObject({ inputTokens: 70648 });
  });

  it('reads :predict embeddings in input order, their tokens summed', () => {
    const result = vertexGeminiAdapter.embeddings?.parseResponse(readFixtureJson(PROVIDER, 'predict-response-text-embedding-005.json'));
    expect(result).toEqual({
      vectors: [
        [0.0181, -0.0402, 0.0297, 0.0113],
        [-0.0125, 0.0333, 0.0071, -0.0219],
      ],
      usage: { inputTokens: 10, outputTokens: 0 },
    });
    const single = vertexGeminiAdapter.embeddings?.parseResponse(readFixtureJson(PROVIDER, 'predict-response-text-multilingual-embedding-002.json'));
    expect(single).toEqual({ vectors: [[-0.06757664680480957, 0.0578920841217041, 0.02345678901234567]], usage: { inputTokens: 6, outputTokens: 0 } });
  });
});
