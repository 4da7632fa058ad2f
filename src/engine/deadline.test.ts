import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors/gateway-error.js';
import { deadlineFromHeaders } from './deadline.js';

const now = 1_000_000;
const route = { totalMs: 60_000, nowMs: now, sdkTimeoutMs: undefined };

describe('deadlineFromHeaders', () => {
  it("prefers x-deadline-ms, then x-request-timeout-ms, then the SDK's timeout, then total_ms", () => {
    expect(deadlineFromHeaders({ 'x-deadline-ms': '1005000', 'x-request-timeout-ms': '10' }, route)).toBe(1_005_000);
    expect(deadlineFromHeaders({ 'x-request-timeout-ms': '1200' }, { ...route, sdkTimeoutMs: 600_000 })).toBe(now + 1_200);
    expect(deadlineFromHeaders({}, { ...route, sdkTimeoutMs: 2_500 })).toBe(now + 2_500);
    expect(deadlineFromHeaders({}, route)).toBe(now + 60_000);
  });

  it('caps a caller deadline at the route total_ms, however far away the caller put it', () => {
    expect(deadlineFromHeaders({}, { ...route, sdkTimeoutMs: 2_147_484_000 })).toBe(now + 60_000);
    expect(deadlineFromHeaders({ 'x-request-timeout-ms': '1e300' }, route)).toBe(now + 60_000);
    expect(deadlineFromHeaders({ 'x-deadline-ms': String(now + 90_000) }, route)).toBe(now + 60_000);
    expect(deadlineFromHeaders({ 'x-request-timeout-ms': '59000' }, route)).toBe(now + 59_000);
  });

  it("rejects a bad value in the gateway's own headers with a 400 naming the header", () => {
    expect(() => deadlineFromHeaders({ 'x-request-timeout-ms': 'soon' }, route)).toThrow(GatewayError);
    expect(() => deadlineFromHeaders({ 'x-request-timeout-ms': '-1' }, route)).toThrow(expect.objectContaining({ param: 'x-request-timeout-ms', status: 400 }));
    expect(() => deadlineFromHeaders({ 'x-deadline-ms': 'NOT_GIVEN' }, route)).toThrow(expect.objectContaining({ param: 'x-deadline-ms', status: 400 }));
  });
});
