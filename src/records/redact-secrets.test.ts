import { describe, expect, it } from 'vitest';
import { redactSecrets, secretRedactor } from './redact-secrets.js';

const none: ReadonlySet<string> = new Set();

describe('redactSecrets', () => {
  it('replaces every occurrence of a known secret', () => {
    const secrets = new Set(['hunter2-admin-token', 'provider-key-0001']);
    expect(redactSecrets('token hunter2-admin-token, again hunter2-admin-token; key provider-key-0001', secrets)).toBe(
      'token [redacted], again [redacted]; key [redacted]',
    );
  });

  it('ignores known secrets shorter than 8 characters, which would match ordinary words', () => {
    expect(redactSecrets('the model is busy', new Set(['busy', 'model']))).toBe('the model is busy');
  });

  it('replaces a secret that contains another one whole', () => {
    expect(redactSecrets('x abcdefgh-longer-secret y', new Set(['abcdefgh', 'abcdefgh-longer-secret']))).toBe('x [redacted] y');
  });

  it.each([
    ['OpenAI', 'Incorrect API key provided: sk-abcDEF1234567890xyz.', 'Incorrect API key provided: [redacted].'],
    ['OpenAI project', 'key sk-proj-Ab_12-cdEFghIJklMNop was revoked', 'key [redacted] was revoked'],
    ['Anthropic', 'invalid x-api-key sk-ant-api03-AbCdEf012345_-xyz', 'invalid x-api-key [redacted]'],
    ['Switchyard virtual', 'key "sk-sy-0123456789abcdef" expired', 'key "[redacted]" expired'],
    ['Google', 'API key not valid: AIzaSyA1234567890abcdefghijklmnopqrstu', 'API key not valid: [redacted]'],
    ['AWS', 'The security token for AKIAIOSFODNN7EXAMPLE is invalid', 'The security token for [redacted] is invalid'],
    ['AWS temporary', 'ASIAABCDEFGHIJKLMNOP denied', '[redacted] denied'],
    ['bearer', 'sent Authorization: Bearer eyJhbGciOi.payload.sig-_~+/= to upstream', 'sent Authorization: Bearer [redacted] to upstream'],
    ['lower-case bearer', 'authorization: bearer abc.def', 'authorization: bearer [redacted]'],
  ])('redacts %s key shapes', (_name, input, expected) => {
    expect(redactSecrets(input, none)).toBe(expected);
  });

  it('leaves ordinary text alone', () => {
    const text = 'Rate limit reached for gpt-4o in organization org-123 on tokens per min (TPM): limit 30000, used 29000. Ask-me-anything; task-queue.';
    expect(redactSecrets(text, none)).toBe(text);
  });

  it('does not double-redact a bearer token that was a known secret', () => {
    expect(redactSecrets('Bearer my-admin-token-value', new Set(['my-admin-token-value']))).toBe('Bearer [redacted]');
  });
});

describe('secretRedactor', () => {
  it('is made once per set of secrets, and treats a secret holding pattern characters literally', () => {
    const secrets = new Set(['key.with+regex(chars)$']);
    expect(secretRedactor(secrets)).toBe(secretRedactor(secrets));
    expect(secretRedactor(secrets)('got key.with+regex(chars)$ and keyXwith+regex(chars)$')).toBe('got [redacted] and keyXwith+regex(chars)$');
  });
});
