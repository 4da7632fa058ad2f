/** The longest grader answer quoted back in an error. */
const QUOTED_CHARACTERS = 80;

/**
 * A grader's answer → its grade, read strictly: the whole answer (surrounding white space aside)
 * must be one number from 0 to 10, such as `7` or `7.5`. Anything else — words around it, two
 * numbers, `7/10` — is no grade, so a chatty grader shows up as grading failures rather than
 * as numbers guessed out of its prose.
 */
export function parseGrade(answer: string): { ok: true; grade: number } | { ok: false; message: string } {
  const text = answer.trim();
  const grade = /^\d{1,2}(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (grade >= 0 && grade <= 10) return { ok: true, grade };
  const quoted = text.length > QUOTED_CHARACTERS ? `${text.slice(0, QUOTED_CHARACTERS)}…` : text;
  return { ok: false, message: `the grader answered ${JSON.stringify(quoted)}, not one number from 0 to 10` };
}
