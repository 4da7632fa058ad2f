/**
 * Name globs (key route globs, route aliases): `*` matches any run of characters (`/` included),
 * `?` exactly one character, everything else itself.
 *
 * Not compiled to RegExps on purpose: the name matched can be a caller-chosen string of any
 * length, and a backtracking regex for `*-*-*` would take polynomial time on a crafted one. A
 * glob splits at its stars into pieces; matching places the first piece at the start, the last
 * at the end and each middle piece at its leftmost fit, which is exact for star globs and
 * costs at most name length × pattern length.
 */

/** A glob split at its stars; each piece is a list of characters where `?` is a wildcard. */
export interface CompiledGlob {
  pieces: readonly (readonly string[])[];
  hasStar: boolean;
}

/** Whether a pattern matches more than one name (and so needs `globMatches`, not equality). */
export function isGlob(pattern: string): boolean {
  return pattern.includes('*') || pattern.includes('?');
}

export function compileGlob(pattern: string): CompiledGlob {
  const pieces = pattern.split('*').map((piece) => Array.from(piece));
  return { pieces, hasStar: pieces.length > 1 };
}

/** `name` as code points (`Array.from`), so `?` is one character even outside the Basic Multilingual Plane. */
export function globMatches(glob: CompiledGlob, name: readonly string[]): boolean {
  const first = glob.pieces[0]!;
  if (!glob.hasStar) return first.length === name.length && pieceMatchesAt(first, name, 0);
  const last = glob.pieces[glob.pieces.length - 1]!;
  const tailStart = name.length - last.length;
  if (tailStart < first.length) return false;
  if (!pieceMatchesAt(first, name, 0) || !pieceMatchesAt(last, name, tailStart)) return false;
  let cursor = first.length;
  for (const piece of glob.pieces.slice(1, -1)) {
    const found = leftmostFit(piece, name, cursor, tailStart);
    if (found === -1) return false;
    cursor = found + piece.length;
  }
  return true;
}

/** The first position in [from, end - piece.length] where the piece matches, or -1. */
function leftmostFit(piece: readonly string[], name: readonly string[], from: number, end: number): number {
  for (let start = from; start + piece.length <= end; start++) {
    if (pieceMatchesAt(piece, name, start)) return start;
  }
  return -1;
}

function pieceMatchesAt(piece: readonly string[], name: readonly string[], start: number): boolean {
  for (let index = 0; index < piece.length; index++) {
    const expected = piece[index];
    if (expected !== '?' && expected !== name[start + index]) return false;
  }
  return true;
}
