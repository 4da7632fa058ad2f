import { describe, expect, it } from 'vitest';
import { mockAnswerText } from '../../src/mock/answer.js';
import { parseDirectives } from '../../src/mock/directives.js';
import { goDuration } from '../../src/mock/openai-wire.js';

describe('parseDirectives', () => {
  it('splits the name from the directives and fills defaults', () => {
    const parsed = parseDirectives('gpt-mock', undefined);
    expect(parsed).toMatchObject({ ok: true, name: 'gpt-mock', raw: {} });
    if (!parsed.ok) return;
    expect(parsed.directives.shape).toMatchObject({ chunks: 8, chunkMs: 0 });
    expect(parsed.directives.faults).toMatchObject({ reset: false, silence: false, headersDelayMs: 0, noDone: false });
  });

  it('reads every directive kind', () => {
    const parsed = parseDirectives(
      'm?status=503&retry_after=1.5&retry_after_ms=20&times=2&flap_down_s=0.25&reset&silence=false' +
        '&headers_delay_ms=5&first_token_ms=6&chunks=3&chunk_ms=7&cut_after=1&stall_after=2' +
        '&inband_error=overloaded&error_after=1&malformed_after=0&no_done&finish=length&tool_call=f' +
        '&ratelimit=9&remaining=4&ratelimit_reset_s=2&error=spend_cap&cached=40&cache_write=8&cache_ttl=1h',
      undefined,
    );
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.directives).toEqual({
      shape: {
        chunks: 3,
        chunkMs: 7,
        toolCall: 'f',
        finish: 'length',
        rateLimit: { limit: 9, remaining: 4, resetS: 2 },
        cache: { readTokens: 40, writeTokens: 8, writeTtl: '1h' },
      },
      faults: {
        status: 503,
        errorName: 'spend_cap',
        retryAfterS: '1.5',
        retryAfterMs: 20,
        reset: true,
        silence: false,
        headersDelayMs: 5,
        firstTokenMs: 6,
        cutAfter: 1,
        stallAfter: 2,
        inband: { kind: 'overloaded', after: 1 },
        malformedAfter: 0,
        noDone: true,
      },
      window: { times: 2, flapDownMs: 250 },
    });
  });

  it('lets the x-mock header override the model string', () => {
    const parsed = parseDirectives('m?status=500&chunks=2', 'status=429');
    expect(parsed.raw).toEqual({ status: '429', chunks: '2' });
  });

  it('decodes URL escapes in values', () => {
    const parsed = parseDirectives('m?tool_call=lookup%20city', undefined);
    expect(parsed.ok && parsed.directives.shape.toolCall).toBe('lookup city');
  });

  it.each([
    ['m?bogus=1', 'unknown directive "bogus"'],
    ['m?status=abc', 'status must be an integer'],
    ['m?status=200', 'status must be an integer from 400 to 599'],
    ['m?chunks=-1', 'chunks must be an integer'],
    ['m?retry_after=soon', 'retry_after must be a non-negative number'],
    ['m?reset=maybe', 'reset is a flag'],
    ['m?error=meltdown', 'error must be one of'],
    ['m?finish=tool_calls', 'finish must be one of'],
    ['m?error_after=2', 'error_after needs inband_error'],
  ])('rejects %s', (model, problem) => {
    const parsed = parseDirectives(model, undefined);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problem).toContain(problem);
  });
});

describe('mockAnswerText', () => {
  it('is word chunks whose shorter answers are prefixes of longer ones', () => {
    expect(mockAnswerText(0)).toBe('');
    expect(mockAnswerText(3)).toBe('w0 w1 w2');
    expect(mockAnswerText(8).startsWith(mockAnswerText(5))).toBe(true);
  });
});

describe('goDuration', () => {
  it.each([
    [0, '0s'],
    [0.012, '12ms'],
    [1, '1s'],
    [1.574, '1.574s'],
    [60, '1m0s'],
    [360, '6m0s'],
    [3725, '1h2m5s'],
  ])('%f s is %s', (seconds, text) => {
    expect(goDuration(seconds)).toBe(text);
  });
});
