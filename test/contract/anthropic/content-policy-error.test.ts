import { describe, expect, it } from 'vitest';
import { anthropicAdapter } from '../../../src/providers/anthropic/adapter.js';

describe('Anthropic content-policy errors', () => {
  it('a 400 invalid_request_error naming the content filtering policy is moderation', () => {
    const body = JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'Output blocked by content filtering policy' } });
    expect(anthropicAdapter.parseError(400, {}, body, 0).kind).toBe('moderation');
  });

  it('an ordinary 400 stays invalid_request', () => {
    const body = JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'messages: roles must alternate' } });
    expect(anthropicAdapter.parseError(400, {}, body, 0).kind).toBe('invalid_request');
  });
});
