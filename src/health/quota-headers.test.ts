import { describe, expect, it } from 'vitest';
import { parseHttpFixture, readFixture } from '../../test/support/fixtures.js';
import { parseDurationMs, parseQuotaHeaders } from './quota-headers.js';

const NOW_MS = Date.parse('2026-02-25T20:02:30Z');

/** The indented `name: value` lines of one section of a Markdown fixture. */
function headersInSection(markdown: string, heading: string): Record<string, string> {
  const section = markdown.split('\n## ').find((part) => part.startsWith(heading));
  if (section === undefined) throw new Error(`no section "${heading}"`);
  const headers: Record<string, string> = {};
  for (const match of section.matchAll(/^ {4}([\w-]+): (.+)$/gm)) headers[match[1]!] = match[2]!;
  return headers;
}

describe('parseQuotaHeaders', () => {
  it('reads OpenAI headers from a recorded response, resets as durations from now', () => {
    const { headers } = parseHttpFixture(readFixture('openai', 'response-headers-and-body.http'));
    expect(parseQuotaHeaders(headers, NOW_MS)).toEqual({
      requests: { limit: 5_000, remaining: 4_999, resetAtMs: NOW_MS + 12 },
      tokens: { limit: 800_000, remaining: 799_986, resetAtMs: NOW_MS + 1 },
    });
  });

  it('reads Anthropic headers from a recorded response, resets as RFC 3339 times', () => {
    const { headers } = parseHttpFixture(readFixture('anthropic', 'response-headers-ratelimit.http'));
    expect(parseQuotaHeaders(headers, NOW_MS)).toEqual({
      requests: { limit: 50, remaining: 49, resetAtMs: Date.parse('2026-02-25T20:02:32Z') },
      tokens: { limit: 38_000, remaining: 36_000, resetAtMs: Date.parse('2026-02-25T20:02:36Z') },
      inputTokens: { limit: 30_000, remaining: 28_000, resetAtMs: Date.parse('2026-02-25T20:02:37Z') },
      outputTokens: { limit: 8_000, remaining: 8_000, resetAtMs: Date.parse('2026-02-25T20:02:36Z') },
    });
  });

  it('ignores the *_usage_based variants OpenAI sends beside the plain headers', () => {
    const headers = headersInSection(readFixture('openai', 'ratelimit-headers.md'), 'Verbatim forum capture');
    expect(headers['x-ratelimit-limit-tokens_usage_based']).toBe('160000');
    expect(parseQuotaHeaders(headers, NOW_MS)).toEqual({
      requests: { limit: 5_000, remaining: 4_999, resetAtMs: NOW_MS + 12 },
      tokens: { limit: 160_000, remaining: 159_976, resetAtMs: NOW_MS + 9 },
    });
  });

  it('treats Azure\'s -1 as unknown, and a window with only a reset as absent', () => {
    const headers = { 'x-ratelimit-limit-tokens': '-1', 'x-ratelimit-remaining-tokens': '-1', 'x-ratelimit-reset-tokens': '0' };
    expect(parseQuotaHeaders(headers, NOW_MS)).toBeUndefined();
  });

  it('is undefined for a response without rate-limit headers', () => {
    const { headers } = parseHttpFixture(readFixture('openai', 'response-headers-and-body.http'));
    const withoutRateLimits = Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith('x-ratelimit-')));
    expect(parseQuotaHeaders(withoutRateLimits, NOW_MS)).toBeUndefined();
  });

  it('keeps the fields it can read and drops the ones it cannot', () => {
    const headers = {
      'x-ratelimit-limit-requests': ['60', '70'],
      'x-ratelimit-remaining-requests': 'many',
      'x-ratelimit-reset-requests': 'soon',
      'x-ratelimit-remaining-tokens': ' 149984 ',
      'x-ratelimit-reset-tokens': '6m0s',
    };
    expect(parseQuotaHeaders(headers, NOW_MS)).toEqual({
      requests: { limit: 60 },
      tokens: { remaining: 149_984, resetAtMs: NOW_MS + 360_000 },
    });
  });

  it('takes an RFC 3339 reset with an offset, and rejects a date that is not RFC 3339', () => {
    const headers = {
      'anthropic-ratelimit-requests-limit': '50',
      'anthropic-ratelimit-requests-reset': '2026-02-25T21:02:32.5+01:00',
      'anthropic-ratelimit-tokens-limit': '1000',
      'anthropic-ratelimit-tokens-reset': 'Wed, 25 Feb 2026 20:02:32 GMT',
    };
    expect(parseQuotaHeaders(headers, NOW_MS)).toEqual({
      requests: { limit: 50, resetAtMs: Date.parse('2026-02-25T20:02:32.500Z') },
      tokens: { limit: 1_000 },
    });
  });
});

describe('parseDurationMs', () => {
  const cases: [string, number][] = [
    ['6m0s', 360_000],
    ['1s', 1_000],
    ['20ms', 20],
    ['12ms', 12],
    ['0.5s', 500],
    ['1.574s', 1_574],
    ['1h2m3.5s', 3_723_500],
    ['2m59.56s', 179_560],
    ['.25s', 250],
    ['1500us', 2],
    ['1500µs', 2],
    ['3000000ns', 3],
    ['0', 0],
    ['60', 60_000],
    ['1.5', 1_500],
  ];
  for (const [text, expectedMs] of cases) {
    it(`${text} is ${expectedMs} ms`, () => {
      expect(parseDurationMs(text)).toBe(expectedMs);
    });
  }

  for (const text of ['', 'ms', 's1', '5x', '-1s', '1s later', '1 s', '1d', 'NaN']) {
    it(`"${text}" is not a duration`, () => {
      expect(parseDurationMs(text)).toBeUndefined();
    });
  }
});
