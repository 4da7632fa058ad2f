import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { anthropicErrorBodies, openaiErrorBodies } from '../../src/mock/error-bodies.js';

const fixtures = new URL('../contract/', import.meta.url);

/** A fixture's JSON body; `.http` captures carry it after the blank line that ends the headers. */
function fixtureBody(path: string): unknown {
  const text = readFileSync(new URL(path, fixtures), 'utf8');
  return JSON.parse(path.endsWith('.http') ? text.slice(text.indexOf('\n\n') + 2) : text) as unknown;
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
});
