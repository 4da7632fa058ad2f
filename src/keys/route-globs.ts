/**
 * Route globs: `*` matches any run of characters (`/` included, so `openai-prod/*` covers the
 * direct form), `?` exactly one character, everything else itself.
 *
 * Not compiled to RegExps on purpose: the route can be a caller-chosen `connection/model` of any
 * length, and a backtracking regex for `*-*-*` would take polynomial time on a crafted one. A
 * glob splits at its stars into pieces; matching places the first piece at the start, the last
 * at the end and each middle piece at its leftmost fit, which is exact for star globs and
 * costs at most route length × pattern length.
 */

/** A glob split at its stars; each piece is a list of characters where `?` is a wildcard. */
interface CompiledGlob {
  pieces: readonly (readonly string[])[];
  hasStar: boolean;
}

/** Compiled once per key: keyed by the key's own routes array. */
const compiledByPatterns = new WeakMap<readonly string[], readonly CompiledGlob[]>();

/** Whether a key with these route globs (null: every route) may use `route`. */
export function routeAllowed(patterns: readonly string[] | null, route: string): boolean {
  if (patterns === null) return true;
  let compiled = compiledByPatterns.get(patterns);
  if (!compiled) {
    compiled = patterns.map(compileGlob);
    compiledByPatterns.set(patterns, compiled);
  }
  // Code points, so `?` is one character even outside the Basic Multilingual Plane.
  const characters = Array.from(route);
  return compiled.some((glob) => globMatches(glob, characters));
}

function compileGlob(pattern: string): CompiledGlob {
  const pieces = pattern.split('*').map((piece) => Array.from(piece));
  return { pieces, hasStar: pieces.length > 1 };
}

function globMatches(glob: CompiledGlob, route: readonly string[]): boolean {
  const first = glob.pieces[0]!;
  if (!glob.hasStar) return first.length === route.length && pieceMatchesAt(first, route, 0);
  const last = glob.pieces[glob.pieces.length - 1]!;
  const tailStart = route.length - last.length;
  if (tailStart < first.length) return false;
  if (!pieceMatchesAt(first, route, 0) || !pieceMatchesAt(last, route, tailStart)) return false;
  let cursor = first.length;
  for (const piece of glob.pieces.slice(1, -1)) {
    const found = leftmostFit(piece, route, cursor, tailStart);
    if (found === -1) return false;
    cursor = found + piece.length;
  }
  return true;
}

/** The first position in [from, end - piece.length] where the piece matches, or -1. */
function leftmostFit(piece: readonly string[], route: readonly string[], from: number, end: number): number {
  for (let start = from; start + piece.length <= end; start++) {
    if (pieceMatchesAt(piece, route, start)) return start;
  }
  return -1;
}

function pieceMatchesAt(piece: readonly string[], route: readonly string[], start: number): boolean {
  for (let index = 0; index < piece.length; index++) {
    const expected = piece[index];
    if (expected !== '?' && expected !== route[start + index]) return false;
  }
  return true;
}
