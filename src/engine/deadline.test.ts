import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors/gateway-error.js';
import { deadlineFromHeaders } from './deadline.js';

const now = 1_000_000;

describe('deadlineFromHeaders', () => {
  it('prefers x-deadline-ms, then x-request-timeout-ms, then x-stainless-timeout, then total_ms', () => {
    expect(deadlineFromHeaders({ 'x-deadline-ms': '1005000', 'x-request-timeout-ms': '10' }, 60_000, now)).toBe(1_005_000);
    expect(deadlineFromHeaders({ 'x-request-timeout-ms': '1200', 'x-stainless-timeout': '600' }, 60_000, now)).toBe(now + 1_200);
    expect(deadlineFromHeaders({ 'x-stainless-timeout': '2.5' }, 60_000, now)).toBe(now + 2_500);
    expect(deadlineFromHeaders({}, 60_000, now)).toBe(now + 60_000);
  });

  it('caps a caller deadline at the route total_ms, however far away the caller put it', () => {
    expect(deadlineFromHeaders({ 'x-stainless-timeout': '2147484' }, 60_000, now)).toBe(now + 60_000);
    expect(deadlineFromHeaders({ 'x-request-timeout-ms': '1e300' }, 60_000, now)).toBe(now + 60_000);
    expect(deadlineFromHeaders({ 'x-deadline-ms': String(now + 90_000) }, 60_000, now)).toBe(now + 60_000);
    expect(deadlineFromHeaders({ 'x-request-timeout-ms': '59000' }, 60_000, now)).toBe(now + 59_000);
  });

  it('rejects a bad header with a 400 naming it', () => {
    expect(() => deadlineFromHeaders({ 'x-request-timeout-ms': 'soon' }, 60_000, now)).toThrow(GatewayError);
    expect(() => deadlineFromHeaders({ 'x-request-timeout-ms': '-1' }, 60_000, now)).toThrow(
      expect.objectContaining({ param: 'x-request-timeout-ms', status: 400 }),
    );
  });
});
