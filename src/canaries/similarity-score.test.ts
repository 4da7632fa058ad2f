import { describe, expect, it } from 'vitest';
import { similarityScore, similarityTokens } from './similarity-score.js';

describe('the canary similarity', () => {
  it('compares NFKC-normalised, lower-cased words with punctuation removed', () => {
    expect(similarityTokens('  Ｐａｒｉｓ, France!\n(the capital)  ')).toEqual(['paris', 'france', 'the', 'capital']);
    expect(similarityTokens("Don't stop.")).toEqual(['dont', 'stop']);
    expect(similarityScore('PARIS.', 'paris')).toBe(1);
  });

  it('is the F1 of the multiset overlap', () => {
    // 2 common tokens; precision 2/3, recall 2/4: F1 = 2·(2/3)·(1/2) / (2/3 + 1/2) = 4/7.
    expect(similarityScore('the cat sat', 'the cat is here')).toBeCloseTo(4 / 7, 12);
    // A repeated word counts only as often as the reference has it: 1 common of 3 and of 1 → 2·(1/3)·1 / (4/3) = 1/2.
    expect(similarityScore('yes yes yes', 'yes')).toBe(0.5);
    // Order is ignored.
    expect(similarityScore('b a', 'a b')).toBe(1);
    // The mock's answer with half its 8 words replaced: 4 common of 8 and 8.
    expect(similarityScore('w0 x1 w2 x3 w4 x5 w6 x7', 'w0 w1 w2 w3 w4 w5 w6 w7')).toBe(0.5);
  });

  it('scores 1 for two empty texts, 0 when only one is empty or nothing is shared', () => {
    expect(similarityScore('', '')).toBe(1);
    expect(similarityScore('?!', ' ')).toBe(1);
    expect(similarityScore('', 'paris')).toBe(0);
    expect(similarityScore('paris', '...')).toBe(0);
    expect(similarityScore('london', 'paris')).toBe(0);
  });
});
