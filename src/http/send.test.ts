import { describe, expect, it } from 'vitest';
import { headerSafe } from './send.js';

describe('headerSafe', () => {
  it('leaves printable ASCII alone', () => {
    expect(headerSafe('openai-prod/gpt-4.1')).toBe('openai-prod/gpt-4.1');
    expect(headerSafe('bedrock/us.anthropic.claude-x-v1:0')).toBe('bedrock/us.anthropic.claude-x-v1:0');
  });

  it('percent-encodes everything else as UTF-8, and % itself once anything is encoded', () => {
    expect(headerSafe('mock/mod€l')).toBe('mock/mod%E2%82%ACl');
    expect(headerSafe('a\nb%')).toBe('a%0Ab%25');
    expect(headerSafe('x\uD800')).toBe('x%EF%BF%BD');
  });
});
