import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bedrockErrors, bedrockStreamExceptions } from '../../src/mock/bedrock-error-bodies.js';
import { bedrockWire } from '../../src/mock/bedrock-wire.js';
import { anthropicErrorBodies, openaiErrorBodies } from '../../src/mock/error-bodies.js';
import {
  geminiErrorBodies,
  geminiInbandErrors,
  geminiNotFoundBody,
  geminiPromptBlocked,
} from '../../src/mock/gemini-error-bodies.js';
import { geminiWire } from '../../src/mock/gemini-wire.js';

const fixtures = new URL('../contract/', import.meta.url);

/** A fixture's JSON body; `.http` captures carry it after the blank line that ends the headers. */
function fixtureBody(path: string): unknown {
  const text = fixtureText(path);
  return JSON.parse(path.endsWith('.http') ? text.slice(text.indexOf('\n\n') + 2) : text) as unknown;
}

function fixtureText(path: string): string {
  return readFileSync(new URL(path, fixtures), 'utf8');
}

describe('the embedded error bodies equal the captured fixtures', () => {
  it.each([
    ['invalidRequest', 'openai/__fixtures__/errors/400-invalid-request-unsupported-parameter.json'],
    ['invalidApiKey', 'openai/__fixtures__/errors/401-invalid-api-key.json'],
    ['unsupportedCountry', 'openai/__fixtures__/errors/403-unsupported-country.json'],
    ['rateLimitExceeded', 'openai/__fixtures__/errors/429-rate-limit-exceeded.json'],
    ['insufficientQuota', 'openai/__fixtures__/errors/429-insufficient-quota.json'],
    ['contextLengthExceeded', 'openai/__fixtures__/errors/400-context-length-exceeded.json'],
    ['invalidPromptSafety', 'openai/__fixtures__/errors/400-invalid-prompt-safety.json'],
    ['serverError', 'openai/__fixtures__/errors/500-server-error.json'],
    ['modelOverloaded', 'openai/__fixtures__/errors/503-model-overloaded.json'],
  ] as const)('OpenAI %s', (name, path) => {
    expect(openaiErrorBodies[name]).toEqual(fixtureBody(path));
  });

  it.each([
    ['invalidRequest', 'anthropic/__fixtures__/errors/400-invalid-request-error.http'],
    ['authentication', 'anthropic/__fixtures__/errors/401-authentication-error.json'],
    ['permission', 'anthropic/__fixtures__/errors/403-permission-error.json'],
    ['rateLimit', 'anthropic/__fixtures__/errors/429-rate-limit-error.http'],
    ['spendCapEnforced', 'anthropic/__fixtures__/errors/429-spend-cap-enforced.json'],
    ['userSpendLimit', 'anthropic/__fixtures__/errors/400-user-spend-limit.json'],
    ['promptTooLong', 'anthropic/__fixtures__/errors/400-prompt-too-long.http'],
    ['apiError', 'anthropic/__fixtures__/errors/500-api-error.json'],
    ['overloaded', 'anthropic/__fixtures__/errors/529-overloaded-error.http'],
  ] as const)('Anthropic %s', (name, path) => {
    expect(anthropicErrorBodies[name]).toEqual(fixtureBody(path));
  });

  it.each([
    ['apiKeyInvalid', 'gemini/__fixtures__/errors/400-invalid-argument-api-key.json'],
    ['invalidArgument', 'gemini/__fixtures__/errors/400-invalid-argument-schema.json'],
    ['tokenLimit', 'gemini/__fixtures__/errors/400-invalid-argument-token-limit.json'],
    ['internal', 'gemini/__fixtures__/errors/500-internal.json'],
    ['unavailable', 'gemini/__fixtures__/errors/503-unavailable-overloaded.json'],
  ] as const)('Gemini %s', (name, path) => {
    expect(geminiErrorBodies[name]).toEqual(fixtureBody(path));
  });

  it('Gemini 429 with retry_after=26 is the captured RESOURCE_EXHAUSTED body, RetryInfo included', () => {
    const answer = geminiWire.error({ status: 429, retryAfterS: '26' }, { model: 'gemini-2.5-flash', stream: false });
    expect(JSON.parse(answer.body)).toEqual(fixtureBody('gemini/__fixtures__/errors/429-resource-exhausted.json'));
  });

  it('Gemini 404 and the blocked prompt', () => {
    expect(geminiNotFoundBody('gemini-1.0-pro')).toEqual(fixtureBody('gemini/__fixtures__/errors/404-not-found-model.json'));
    expect(geminiPromptBlocked).toEqual(fixtureBody('gemini/__fixtures__/generateContent-response-prompt-blocked.json'));
  });

  it('Gemini in-band server error is the bare chunk of midstream-error-chunk.txt', () => {
    const bareLine = fixtureText('gemini/__fixtures__/errors/midstream-error-chunk.txt')
      .split('\n')
      .find((line) => line.startsWith('{"error"'));
    expect(geminiInbandErrors.server_error).toEqual(JSON.parse(bareLine!));
  });

  it.each([
    ['throttling', 'bedrock/__fixtures__/errors/429-throttling.http'],
    ['serviceUnavailable', 'bedrock/__fixtures__/errors/503-service-unavailable-too-many-connections.json'],
    ['contextTooLong', 'bedrock/__fixtures__/errors/400-validation-context-too-long.json'],
  ] as const)('Bedrock %s', (name, path) => {
    expect(bedrockErrors[name].body).toEqual(fixtureBody(path));
  });

  it('Bedrock 429 carries the captured x-amzn-ErrorType and the body byte for byte', () => {
    const capture = fixtureText('bedrock/__fixtures__/errors/429-throttling.http');
    const errorType = /^x-amzn-ErrorType: (.+)$/m.exec(capture)?.[1];
    const answer = bedrockWire.error({ status: 429 }, { model: 'm', stream: false });
    expect(answer.headers['x-amzn-errortype']).toBe(errorType);
    expect(answer.body).toBe(capture.slice(capture.indexOf('\n\n') + 2).trim());
  });

  it('Bedrock in-band service-unavailable is the captured exception frame', () => {
    const capture = fixtureText('bedrock/__fixtures__/errors/stream-exception-frame.txt');
    expect(capture).toContain(`:exception-type = ${bedrockStreamExceptions.overloaded.type}`);
    expect(capture).toContain(JSON.stringify(bedrockStreamExceptions.overloaded.body));
  });
});
