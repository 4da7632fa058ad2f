/**
 * Who caused a request: a caller, the fallback drill, the quality canary, or an active health
 * probe. Records, spend rows and request metrics carry it, so gateway-made traffic is billed and
 * kept like any other yet stays out of the figures that describe callers (docs/drills-and-canaries.md).
 */
export const REQUEST_ORIGINS = ['caller', 'drill', 'canary', 'probe'] as const;

export type RequestOrigin = (typeof REQUEST_ORIGINS)[number];
