import { describe, expect, it } from 'vitest';
import { sentinelAddress } from './redis-target.js';

describe('sentinelAddress', () => {
  it('splits host:port, unbracketing an IPv6 host', () => {
    expect(sentinelAddress('10.0.0.5:26379')).toEqual({ host: '10.0.0.5', port: 26379 });
    expect(sentinelAddress('sentinel-a.internal:26380')).toEqual({ host: 'sentinel-a.internal', port: 26380 });
    expect(sentinelAddress('[::1]:26379')).toEqual({ host: '::1', port: 26379 });
  });
});
