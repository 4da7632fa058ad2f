import { describe, expect, it } from 'vitest';
import { redactKeyShapes } from './redact-key-shapes.js';

describe('redactKeyShapes', () => {
  it.each([
    ['an OpenAI key', 'sk-AbCdEfGh0123456789AbCdEfGh0123456789AbCdEfGh', '[redacted]'],
    ['an OpenAI project key', 'sk-proj-Ab_12-cdEFghIJklMNop', '[redacted]'],
    ['an Anthropic key', 'sk-ant-api03-AbCdEf012345_-xyz', '[redacted]'],
    ['a Switchyard virtual key', 'sk-sy-0123456789abcdef', '[redacted]'],
    ['a Google key', 'AIzaSyA1234567890abcdefghijklmnopqrstu', '[redacted]'],
    ['an AWS key id', 'AKIAIOSFODNN7EXAMPLE', '[redacted]'],
    ['a key in the connection/model form', 'openai/sk-proj-Ab_12-cdEFghIJklMNop', 'openai/[redacted]'],
    ['a key inside a sentence', 'The model `sk-ant-api03-AbCdEf012345` does not exist.', 'The model `[redacted]` does not exist.'],
  ])('replaces %s', (_name, text, expected) => {
    expect(redactKeyShapes(text)).toBe(expected);
  });

  it.each(['gpt-4o', 'claude-sonnet-4-5', 'openai/gpt-4.1-mini', 'disk-abcdefghijkl', 'task-queue-model', 'sk-short', 'AIza-too-short', 'ASIA-pacific'])(
    'leaves the model name %s as it is',
    (name) => {
      expect(redactKeyShapes(name)).toBe(name);
    },
  );
});
