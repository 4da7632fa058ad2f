import { describe, expect, it } from 'vitest';
import { clientHints } from './client-hints.js';

function read(headers: Record<string, string>) {
  const unreadable: [string, string][] = [];
  const hints = clientHints(headers, (header, value) => unreadable.push([header, value]));
  return { hints, unreadable };
}

describe('clientHints', () => {
  it('reads the timeout in seconds and the retry count the SDKs send', () => {
    expect(read({ 'x-stainless-timeout': '600', 'x-stainless-retry-count': '0' })).toEqual({ hints: { timeoutMs: 600_000, retryCount: 0 }, unreadable: [] });
    expect(read({ 'x-stainless-timeout': '2.5', 'x-stainless-retry-count': '2' })).toEqual({ hints: { timeoutMs: 2_500, retryCount: 2 }, unreadable: [] });
    expect(read({})).toEqual({ hints: { timeoutMs: undefined, retryCount: undefined }, unreadable: [] });
  });

  it.each([
    ['x-stainless-timeout', 'NOT_GIVEN'],
    ['x-stainless-timeout', '0'],
    ['x-stainless-timeout', '-5'],
    ['x-stainless-timeout', ''],
    ['x-stainless-timeout', '1e400'],
    ['x-stainless-retry-count', 'NOT_GIVEN'],
    ['x-stainless-retry-count', '1.5'],
    ['x-stainless-retry-count', '-1'],
    ['x-stainless-retry-count', ' '],
  ])('ignores %s: %j, and says so', (header, value) => {
    const { hints, unreadable } = read({ [header]: value });
    expect(hints).toEqual({ timeoutMs: undefined, retryCount: undefined });
    expect(unreadable).toEqual([[header, value]]);
  });
});
