import { describe, expect, it } from 'vitest';
import { describeQuoted, quoteValue } from './quote-value.js';

describe('quoteValue', () => {
  it('quotes an ordinary value as JSON', () => {
    expect(describeQuoted(quoteValue('wieghted', ['routes', 'r', 'strategy'], []))).toBe('(got "wieghted")');
  });

  it('never shows a value under a secret-bearing key, whatever its type', () => {
    expect(quoteValue(['sk-live'], ['connections', 'a', 'api_key'], [])).toEqual({ shown: false, why: 'a secret' });
    expect(quoteValue('sk-live', ['connections', 'a', 'api_key', 0], [])).toEqual({ shown: false, why: 'a secret' });
    expect(quoteValue('postgres://u:pw@db/x', ['store', 'url'], [])).toEqual({ shown: false, why: 'a secret' });
  });

  it('never shows a mapping that holds a secret', () => {
    expect(quoteValue({ provider: 'openai', api_key: 'sk-live' }, ['connections', 'a'], [])).toEqual({ shown: false, why: 'a secret' });
  });

  it('names the variables a value came from instead of showing it', () => {
    const substitutions = [{ path: ['connections', 'a', 'base_url'], variables: ['HOST', 'PORT'] }];
    expect(describeQuoted(quoteValue('x:y', ['connections', 'a', 'base_url'], substitutions))).toBe('(not shown: it comes from ${env:HOST}, ${env:PORT})');
    // A mapping holding an interpolated value is not shown either.
    expect(quoteValue({ base_url: 'x:y' }, ['connections', 'a'], substitutions).shown).toBe(false);
    expect(quoteValue('mock', ['connections', 'b', 'provider'], substitutions).shown).toBe(true);
  });
});
