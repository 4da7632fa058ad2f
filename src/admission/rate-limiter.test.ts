import { describe, expect, it } from 'vitest';
import { InMemoryRateLimiter, type RateAdmission, type RateTicket } from './rate-limiter.js';

function ticketOf(admission: RateAdmission): RateTicket {
  if (!admission.ok) throw new Error(`refused: ${admission.limit} for ${admission.retryAfterMs} ms`);
  return admission.ticket;
}

describe('InMemoryRateLimiter: requests per minute', () => {
  it('refuses the 4th request of a burst at rpm 3 until one request has refilled', () => {
    const limiter = new InMemoryRateLimiter();
    const admit = (nowMs: number) => limiter.admit({ keyId: 'key_a', rpm: 3, estimatedTokens: 10, nowMs });
    for (let i = 0; i < 3; i++) expect(admit(0).ok).toBe(true);
    // Three a minute is one every 20 s.
    expect(admit(0)).toEqual({ ok: false, limit: 'rpm', retryAfterMs: 20_000 });
    expect(admit(19_999)).toEqual({ ok: false, limit: 'rpm', retryAfterMs: 1 });
    expect(admit(20_000).ok).toBe(true);
    expect(admit(20_000)).toEqual({ ok: false, limit: 'rpm', retryAfterMs: 20_000 });
  });

  it('keeps keys apart and lets unlimited keys through', () => {
    const limiter = new InMemoryRateLimiter();
    expect(limiter.admit({ keyId: 'key_a', rpm: 1, estimatedTokens: 1, nowMs: 0 }).ok).toBe(true);
    expect(limiter.admit({ keyId: 'key_a', rpm: 1, estimatedTokens: 1, nowMs: 0 }).ok).toBe(false);
    expect(limiter.admit({ keyId: 'key_b', rpm: 1, estimatedTokens: 1, nowMs: 0 }).ok).toBe(true);
    for (let i = 0; i < 100; i++) expect(limiter.admit({ keyId: 'key_c', rpm: null, tpm: null, estimatedTokens: 1, nowMs: 0 }).ok).toBe(true);
    expect(limiter.trackedKeys).toBe(2);
  });
});

describe('InMemoryRateLimiter: tokens per minute', () => {
  it('charges the estimate, then the larger actual usage once known', () => {
    const limiter = new InMemoryRateLimiter();
    const first = ticketOf(limiter.admit({ keyId: 'key_a', tpm: 1_000, estimatedTokens: 400, nowMs: 0 }));
    // 600 left: a 500-token request fits on the estimate alone…
    limiter.settle(first, 900, 0);
    // …but the output brought the first to 900, so 100 are left and 500 must wait for 400 more:
    // at 1,000 a minute that is 24 s.
    expect(limiter.admit({ keyId: 'key_a', tpm: 1_000, estimatedTokens: 500, nowMs: 0 })).toEqual({
      ok: false,
      limit: 'tpm',
      retryAfterMs: 24_000,
    });
    expect(limiter.admit({ keyId: 'key_a', tpm: 1_000, estimatedTokens: 500, nowMs: 24_000 }).ok).toBe(true);
  });

  it('refunds an estimate larger than the actual usage, never past capacity', () => {
    const limiter = new InMemoryRateLimiter();
    const first = ticketOf(limiter.admit({ keyId: 'key_a', tpm: 1_000, estimatedTokens: 800, nowMs: 0 }));
    expect(limiter.admit({ keyId: 'key_a', tpm: 1_000, estimatedTokens: 800, nowMs: 0 }).ok).toBe(false);
    limiter.settle(first, 0, 0);
    const second = ticketOf(limiter.admit({ keyId: 'key_a', tpm: 1_000, estimatedTokens: 800, nowMs: 0 }));
    limiter.settle(second, 0, 60_000);
    // A full bucket stays at capacity: 1,000, not 1,800.
    expect(limiter.admit({ keyId: 'key_a', tpm: 1_000, estimatedTokens: 1_000, nowMs: 60_000 }).ok).toBe(true);
    expect(limiter.admit({ keyId: 'key_a', tpm: 1_000, estimatedTokens: 1, nowMs: 60_000 }).ok).toBe(false);
  });

  it('admits a request larger than the limit on a full bucket and makes the key pay it back', () => {
    const limiter = new InMemoryRateLimiter();
    expect(limiter.admit({ keyId: 'key_a', tpm: 1_000, estimatedTokens: 5_000, nowMs: 0 }).ok).toBe(true);
    // 4,000 in debt: one more token needs 4,001 refilled, at 1,000 a minute.
    expect(limiter.admit({ keyId: 'key_a', tpm: 1_000, estimatedTokens: 1, nowMs: 0 })).toEqual({
      ok: false,
      limit: 'tpm',
      retryAfterMs: 240_060,
    });
  });

  it('charges nothing when refused, and names the limit with the longer wait', () => {
    const limiter = new InMemoryRateLimiter();
    const request = { keyId: 'key_a', rpm: 2, tpm: 1_000, nowMs: 0 };
    expect(limiter.admit({ ...request, estimatedTokens: 900 }).ok).toBe(true);
    // tpm refuses (100 left, 900 needed: 48 s); the request slot was not taken by the refusal.
    expect(limiter.admit({ ...request, estimatedTokens: 900 })).toEqual({ ok: false, limit: 'tpm', retryAfterMs: 48_000 });
    expect(limiter.admit({ ...request, estimatedTokens: 100 }).ok).toBe(true);
    // Now both refuse: rpm for 30 s, tpm (0 left, 900 needed) for 54 s.
    expect(limiter.admit({ ...request, estimatedTokens: 900 })).toEqual({ ok: false, limit: 'tpm', retryAfterMs: 54_000 });
    expect(limiter.admit({ ...request, estimatedTokens: 0 })).toEqual({ ok: false, limit: 'rpm', retryAfterMs: 30_000 });
  });
});

describe('InMemoryRateLimiter: memory', () => {
  it('forgets keys whose buckets have refilled, and only those', () => {
    const limiter = new InMemoryRateLimiter();
    limiter.admit({ keyId: 'key_idle', rpm: 60, estimatedTokens: 1, nowMs: 0 });
    limiter.admit({ keyId: 'key_in_debt', tpm: 1_000, estimatedTokens: 3_000, nowMs: 0 });
    expect(limiter.trackedKeys).toBe(2);

    // A minute later the idle key is full again; the other still owes 2,000 tokens (2 more minutes).
    limiter.admit({ keyId: 'key_new', rpm: 60, estimatedTokens: 1, nowMs: 60_000 });
    expect(limiter.trackedKeys).toBe(2);
    expect(limiter.admit({ keyId: 'key_in_debt', tpm: 1_000, estimatedTokens: 1, nowMs: 60_000 }).ok).toBe(false);

    limiter.admit({ keyId: 'key_new', rpm: 60, estimatedTokens: 1, nowMs: 240_000 });
    expect(limiter.trackedKeys).toBe(1);
  });

  it('settles a ticket whose key was forgotten meanwhile as if it had never been', () => {
    const limiter = new InMemoryRateLimiter();
    const ticket = ticketOf(limiter.admit({ keyId: 'key_a', tpm: 1_000, estimatedTokens: 100, nowMs: 0 }));
    limiter.admit({ keyId: 'key_b', rpm: 1, estimatedTokens: 1, nowMs: 60_000 });
    expect(limiter.trackedKeys).toBe(1);
    limiter.settle(ticket, 700, 60_000);
    // Full (1,000) minus the 600 the estimate missed.
    expect(limiter.admit({ keyId: 'key_a', tpm: 1_000, estimatedTokens: 401, nowMs: 60_000 })).toEqual({
      ok: false,
      limit: 'tpm',
      retryAfterMs: 60,
    });
  });
});

describe('InMemoryRateLimiter: restored levels', () => {
  it('starts a key where the levels say, refilling from their time, and never over a key it holds', () => {
    const limiter = new InMemoryRateLimiter();
    // rpm 3, one request left at 0 ms: the first admits, the second waits 20 s.
    limiter.restore('key_a', { requests: { level: 60_000, limit: 3 }, atMs: 0 });
    expect(limiter.admit({ keyId: 'key_a', rpm: 3, estimatedTokens: 1, nowMs: 0 }).ok).toBe(true);
    expect(limiter.admit({ keyId: 'key_a', rpm: 3, estimatedTokens: 1, nowMs: 0 })).toEqual({ ok: false, limit: 'rpm', retryAfterMs: 20_000 });
    limiter.restore('key_a', { requests: { level: 180_000, limit: 3 }, atMs: 0 });
    expect(limiter.admit({ keyId: 'key_a', rpm: 3, estimatedTokens: 1, nowMs: 0 }).ok).toBe(false);
  });
});
