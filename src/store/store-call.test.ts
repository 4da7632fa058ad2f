import { afterEach, describe, expect, it, vi } from 'vitest';
import { GatewayError } from '../errors/gateway-error.js';
import { storeCall } from './store-call.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('storeCall', () => {
  it('gives up on a call that has not answered after 1 s, whatever it is made of, with a 503 gateway_unavailable', async () => {
    vi.useFakeTimers();
    let settled: unknown;
    storeCall(new Promise(() => undefined)).catch((error: unknown) => (settled = error));
    await vi.advanceTimersByTimeAsync(999);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBeInstanceOf(GatewayError);
    expect(settled).toMatchObject({ status: 503, code: 'gateway_unavailable', retryAfterMs: 1_000 });
  });

  it('answers what the store answered in time, and passes a GatewayError through as it is', async () => {
    expect(await storeCall(Promise.resolve(7))).toBe(7);
    const notFound = new GatewayError('No such thing.', { status: 404, code: 'not_found', type: 'invalid_request_error' });
    await expect(storeCall(Promise.reject(notFound))).rejects.toBe(notFound);
    await expect(storeCall(Promise.reject(new Error('SQLITE_BUSY')))).rejects.toMatchObject({ status: 503, code: 'gateway_unavailable' });
  });
});
