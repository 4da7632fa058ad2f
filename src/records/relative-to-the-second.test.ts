import { expect, it } from 'vitest';
import { relativeToTheSecond } from './relative-to-the-second.js';

it('says how far off a moment is to the second, leaving out units that are zero', () => {
  const now = 1_000_000;
  expect(relativeToTheSecond(now + 118_000, now)).toBe('in 1 min 58 s');
  expect(relativeToTheSecond(now - 12_000, now)).toBe('12 s ago');
  expect(relativeToTheSecond(now + 7_200_000, now)).toBe('in 2 h');
  expect(relativeToTheSecond(now + 3_723_400, now)).toBe('in 1 h 2 min 3 s');
  expect(relativeToTheSecond(now + 400, now)).toBe('now');
});
