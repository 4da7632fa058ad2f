/** Longest a provider's Retry-After can keep a deployment cooling (docs/lifecycle.md). */
export const MAX_COOLING_MS = 5 * 60_000;
/** Cooling after a 429 that named no Retry-After. */
export const DEFAULT_COOLING_MS = 30_000;
