/**
 * A relayed answer is kept (a Responses answer stored) as the object its text parses to, and sent
 * as the provider's text unless keeping it changed it (a store that failed says `store: false`).
 * Keeping changes top-level fields only, so comparing those against a copy taken before is enough.
 */
export function topLevelCopy(answer: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return { ...answer };
}

export function changedAtTopLevel(before: Readonly<Record<string, unknown>>, after: Readonly<Record<string, unknown>>): boolean {
  const keys = Object.keys(after);
  return keys.length !== Object.keys(before).length || keys.some((key) => !Object.is(before[key], after[key]));
}
