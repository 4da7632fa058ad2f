/**
 * The candidate a misspelt name most likely meant, for a "did you mean" hint; undefined when none
 * is close enough to be a plausible typo (at most a third of the name's letters, and at least 2, differ).
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** The `count` candidates nearest to `name` by edit distance, nearest first (ties in the candidates' order), however far. */
export function nearestNames(name: string, candidates: readonly string[], count: number): string[] {
  return candidates
    .map((candidate, order) => ({ candidate, order, distance: editDistance(name, candidate) }))
    .sort((a, b) => a.distance - b.distance || a.order - b.order)
    .slice(0, count)
    .map(({ candidate }) => candidate);
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length]!;
}
