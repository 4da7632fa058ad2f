import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../providers/spec.js';
import { withSessionCacheKey } from './session-cache-key.js';

const request: ChatRequest = { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], stream: false, includeUsage: false };

describe('withSessionCacheKey', () => {
  it('keys a request without a prompt_cache_key by its session', () => {
    expect(withSessionCacheKey(request, 'session-1').promptCacheKey).toBe('session-1');
  });

  it("keeps the caller's own key, and a request without a session as it is", () => {
    expect(withSessionCacheKey({ ...request, promptCacheKey: 'mine' }, 'session-1').promptCacheKey).toBe('mine');
    expect(withSessionCacheKey(request, undefined)).toBe(request);
  });
});
