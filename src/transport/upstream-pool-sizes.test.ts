import { describe, expect, it } from 'vitest';
import type { ConnectionConfig } from '../config/schema.js';
import { upstreamPoolSizes } from './upstream-pool-sizes.js';

const connection = (baseUrl: string | undefined, maxInFlight: number, alternateHosts: string[] = []): ConnectionConfig => ({
  provider: 'openai-compatible',
  ...(baseUrl === undefined ? {} : { base_url: baseUrl }),
  alternate_hosts: alternateHosts,
  max_in_flight: maxInFlight,
  optional: false,
  relay: 'auto',
});

describe('upstreamPoolSizes', () => {
  it('sums max_in_flight over the connections that share an origin, paths and all', () => {
    const sizes = upstreamPoolSizes(
      { a: connection('http://10.0.0.1:8000/v1', 300), b: connection('http://10.0.0.1:8000/other/v1', 250), c: connection('https://api.example.com/v1', 4) },
      (each) => each.base_url,
    );
    expect(Object.fromEntries(sizes)).toEqual({ 'http://10.0.0.1:8000': 550, 'https://api.example.com': 4 });
  });

  it('counts a connection once per origin it can send to, alternate hosts included', () => {
    const sizes = upstreamPoolSizes(
      { a: connection('http://primary:1/v1', 10, ['http://standby:2/v1', 'http://primary:1/v2']) },
      (each) => each.base_url,
    );
    expect(Object.fromEntries(sizes)).toEqual({ 'http://primary:1': 10, 'http://standby:2': 10 });
  });

  it('uses the base URL the provider defaults to when the connection names none', () => {
    const sizes = upstreamPoolSizes({ a: connection(undefined, 7) }, () => 'https://api.openai.com/v1');
    expect(Object.fromEntries(sizes)).toEqual({ 'https://api.openai.com': 7 });
  });
});
