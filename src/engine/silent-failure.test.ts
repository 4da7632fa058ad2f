import { describe, expect, it } from 'vitest';
import { silentFailure } from './silent-failure.js';

describe('silentFailure', () => {
  const hangUp = { kind: 'connection' as const, type: 'UND_ERR_SOCKET', message: 'other side closed' };
  const unavailable = { kind: 'server_error' as const, status: 503, message: 'overloaded' };

  it('a hang-up or a server error after silence for half the first-token timeout or more is a timeout', () => {
    expect(silentFailure(hangUp, { silentMs: 600, timeoutMs: 1_000, afterContent: false })).toMatchObject({ kind: 'timeout', type: 'silent_hang_up' });
    expect(silentFailure(hangUp, { silentMs: 500, timeoutMs: 1_000, afterContent: false }).kind).toBe('timeout');
    expect(silentFailure(unavailable, { silentMs: 500, timeoutMs: 1_000, afterContent: false })).toMatchObject({ kind: 'timeout', type: 'silent_then_failed', status: 503 });
  });

  it('after content, a hang-up or a server error after silence for half the idle timeout or more is a timeout too, silent_then_failed', () => {
    expect(silentFailure(hangUp, { silentMs: 15_000, timeoutMs: 30_000, afterContent: true })).toMatchObject({ kind: 'timeout', type: 'silent_then_failed' });
    expect(silentFailure(unavailable, { silentMs: 20_000, timeoutMs: 30_000, afterContent: true })).toMatchObject({ kind: 'timeout', type: 'silent_then_failed', status: 503 });
    expect(silentFailure(hangUp, { silentMs: 14_999, timeoutMs: 30_000, afterContent: true })).toBe(hangUp);
  });

  it('a quick failure, one with no silence known (content came, or nothing was sent) and an answer that is not a fault stay as they are', () => {
    expect(silentFailure(hangUp, { silentMs: 499, timeoutMs: 1_000, afterContent: false })).toBe(hangUp);
    expect(silentFailure(unavailable, undefined)).toBe(unavailable);
    const throttled = { kind: 'rate_limit' as const, status: 429, message: 'slow down' };
    expect(silentFailure(throttled, { silentMs: 900, timeoutMs: 1_000, afterContent: false })).toBe(throttled);
    const gone = { kind: 'cancelled' as const, message: 'the caller disconnected' };
    expect(silentFailure(gone, { silentMs: 900, timeoutMs: 1_000, afterContent: false })).toBe(gone);
  });
});
