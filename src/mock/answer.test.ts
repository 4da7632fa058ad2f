import { describe, expect, it } from 'vitest';
import { isDegradedWord, mockAnswerText, mockDegradedPieces, splitIntoPieces } from './answer.js';
import { parseDirectives } from './directives.js';

describe('a degraded answer', () => {
  it('replaces exactly ⌊n × share⌋ of n words, spread evenly, the same every time', () => {
    expect(mockDegradedPieces(10, 0.3).join('')).toBe('w0 w1 w2 x3 w4 w5 x6 w7 w8 x9');
    expect(mockDegradedPieces(10, 0.3)).toEqual(mockDegradedPieces(10, 0.3));
    for (const [chunks, share] of [[100, 0.29], [37, 0.5], [1000, 0.1], [8, 1], [8, 0]] as const) {
      const replaced = mockDegradedPieces(chunks, share).filter((piece) => piece.includes('x')).length;
      expect(replaced).toBe(Math.floor(chunks * share + 1e-9));
    }
  });

  it('keeps every word it does not replace, and a shorter answer is a prefix of a longer one', () => {
    const words = mockDegradedPieces(50, 0.4).join('').split(' ');
    const original = mockAnswerText(50).split(' ');
    words.forEach((word, index) => expect(word).toBe(isDegradedWord(index, 0.4) ? `x${index}` : original[index]));
    expect(mockDegradedPieces(50, 0.4).join('').startsWith(mockDegradedPieces(20, 0.4).join(''))).toBe(true);
  });

  it('is asked for with degrade=SHARE, a share from 0 to 1', () => {
    const parsed = parseDirectives('gpt-mock?degrade=0.25', undefined);
    expect(parsed.ok && parsed.directives.shape.degrade).toBe(0.25);
    expect(parseDirectives('gpt-mock?degrade=1.5', undefined)).toMatchObject({ ok: false, problem: 'degrade must be a share from 0 to 1, got "1.5"' });
    expect(parseDirectives('gpt-mock?degrade=much', undefined)).toMatchObject({ ok: false });
  });
});

describe('splitIntoPieces', () => {
  it('splits into nearly equal pieces that join to the text, never more pieces than characters, never none', () => {
    expect(splitIntoPieces('{"a":1}', 3)).toEqual(['{"', 'a"', ':1}']);
    expect(splitIntoPieces('{}', 8)).toEqual(['{', '}']);
    expect(splitIntoPieces('{}', 0)).toEqual(['{}']);
    expect(splitIntoPieces('"🙂🙂"', 4).join('')).toBe('"🙂🙂"');
  });
});
