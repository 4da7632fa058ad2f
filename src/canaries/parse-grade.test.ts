import { describe, expect, it } from 'vitest';
import { parseGrade } from './parse-grade.js';

describe("a grader's answer", () => {
  it('is a grade when it is one number from 0 to 10 and nothing else', () => {
    expect(parseGrade('7')).toEqual({ ok: true, grade: 7 });
    expect(parseGrade(' 10\n')).toEqual({ ok: true, grade: 10 });
    expect(parseGrade('0')).toEqual({ ok: true, grade: 0 });
    expect(parseGrade('7.5')).toEqual({ ok: true, grade: 7.5 });
  });

  it('is no grade when anything else is said, or the number is out of range', () => {
    for (const answer of ['Grade: 7', '7/10', '7 out of 10', '11', '-1', '10.5', '', 'seven', '7 8', '1e1', '.5', '07.']) {
      expect(parseGrade(answer)).toMatchObject({ ok: false });
    }
    expect(parseGrade('I would say 8')).toEqual({ ok: false, message: 'the grader answered "I would say 8", not one number from 0 to 10' });
  });
});
