import { describe, expect, it } from 'vitest';
import { silentFailure } from './silent-failure.js';

describe('silentFailure', () => {
  const hangUp = { kind: 'connection' as const, type: 'UND_ERR_SOCKET', message: 'other side closed' };
  const unavailable = { kind: 'server_error' as const, status: 503, message: 'overloaded' };

  it('a hang-up or a server error after silence for half the first-token timeout or more is a timeout', () => {
    expect(silentFailure(hangUp, { silentMs: 600, firstTokenTimeoutMs: 1_000 })).toMatchObject({ kind: 'timeout', type: 'silent_hang_up' });
    expect(silentFailure(hangUp, { silentMs: 500, firstTokenTimeoutMs: 1_000 }).kind).toBe('timeout');
    expect(silentFailure(unavailable, { silentMs: 500, firstTokenTimeoutMs: 1_000 })).toMatchObject({ kind: 'timeout', type: 'silent_then_failed', status: 503 });
  });

  it('a quick failure, one with no silence known (content came, or nothing was sent) and an answer that is not a fault stay as they are', () => {
    expect(silentFailure(hangUp, { silentMs: 499, firstTokenTimeoutMs: 1_000 })).toBe(hangUp);
    expect(silentFailure(unavailable, undefined)).toBe(unavailable);
    const throttled = { kind: 'rate_limit' as const, status: 429, message: 'slow down' };
    expect(silentFailure(throttled, { silentMs: 900, firstTokenTimeoutMs: 1_000 })).toBe(throttled);
    const gone = { kind: 'cancelled' as const, message: 'the caller disconnected' };
    expect(silentFailure(gone, { silentMs: 900, firstTokenTimeoutMs: 1_000 })).toBe(gone);
  });
});
