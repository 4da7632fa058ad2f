import { compileGlob, globMatches, type CompiledGlob } from '../core/glob.js';

/** Compiled once per key: keyed by the key's own routes array. */
const compiledByPatterns = new WeakMap<readonly string[], readonly CompiledGlob[]>();

/**
 * Whether a key with these route globs (null: every route) may use `route` (`core/glob.ts`;
 * `*` crosses `/`, so `openai-prod/*` covers the direct form).
 */
export function routeAllowed(patterns: readonly string[] | null, route: string): boolean {
  if (patterns === null) return true;
  let compiled = compiledByPatterns.get(patterns);
  if (!compiled) {
    compiled = patterns.map(compileGlob);
    compiledByPatterns.set(patterns, compiled);
  }
  const characters = Array.from(route);
  return compiled.some((glob) => globMatches(glob, characters));
}
