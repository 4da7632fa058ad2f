/** Lower-cased NFKC words, punctuation removed: what the similarity compares. */
export function similarityTokens(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\p{P}/gu, '')
    .split(/\s+/u)
    .filter((token) => token !== '');
}

/**
 * How close an answer is to its reference, in 0..1: the F1 of their tokens (similarityTokens)
 * counted as multisets — precision is the share of the answer's tokens found in the reference,
 * recall the share of the reference's found in the answer. Word order is ignored. Two empty
 * texts score 1; one empty text scores 0.
 */
export function similarityScore(answer: string, reference: string): number {
  const answerTokens = similarityTokens(answer);
  const referenceTokens = similarityTokens(reference);
  if (answerTokens.length === 0 && referenceTokens.length === 0) return 1;
  if (answerTokens.length === 0 || referenceTokens.length === 0) return 0;
  const unmatched = new Map<string, number>();
  for (const token of referenceTokens) unmatched.set(token, (unmatched.get(token) ?? 0) + 1);
  let common = 0;
  for (const token of answerTokens) {
    const left = unmatched.get(token) ?? 0;
    if (left === 0) continue;
    unmatched.set(token, left - 1);
    common++;
  }
  if (common === 0) return 0;
  const precision = common / answerTokens.length;
  const recall = common / referenceTokens.length;
  return (2 * precision * recall) / (precision + recall);
}
