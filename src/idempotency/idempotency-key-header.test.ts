import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors/gateway-error.js';
import { idempotencyKeyOf, upstreamIdempotencyKey } from './idempotency-key-header.js';

describe('idempotencyKeyOf', () => {
  it('reads the header, or nothing without one', () => {
    expect(idempotencyKeyOf({ 'idempotency-key': 'a3f0c2e4-7d1b-4c5e-9f8a-2b6d0e1c3a5f' })).toBe('a3f0c2e4-7d1b-4c5e-9f8a-2b6d0e1c3a5f');
    expect(idempotencyKeyOf({})).toBeUndefined();
  });

  it('refuses an empty or oversized key with a 400', () => {
    for (const key of ['', 'k'.repeat(256)]) {
      expect(() => idempotencyKeyOf({ 'idempotency-key': key })).toThrow(GatewayError);
    }
    expect(idempotencyKeyOf({ 'idempotency-key': 'k'.repeat(255) })).toHaveLength(255);
  });
});

describe('upstreamIdempotencyKey', () => {
  it('is stable for one caller and key, and differs between callers using the same key', () => {
    expect(upstreamIdempotencyKey('key_a', 'retry-1')).toBe(upstreamIdempotencyKey('key_a', 'retry-1'));
    expect(upstreamIdempotencyKey('key_a', 'retry-1')).not.toBe(upstreamIdempotencyKey('key_b', 'retry-1'));
    expect(upstreamIdempotencyKey('key_a', 'retry-1')).toMatch(/^sy-[0-9a-f]{64}$/);
  });
});
