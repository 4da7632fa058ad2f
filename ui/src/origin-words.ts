import type { OriginChoice } from './admin-api-types.js';

/** Whose requests a figure counts, as the pages say it beside every count (`callers' attempts`). */
export const ORIGIN_WORDS = {
  caller: "callers'",
  all: "every origin's",
  probe: "probes'",
  drill: "drills'",
  canary: "canaries'",
} as const satisfies Record<OriginChoice, string>;

/** The origin a page's `origin=` asks for; callers' when absent or unknown, as the admin API reads it. */
export function originOf(query: URLSearchParams): OriginChoice {
  const asked = query.get('origin');
  return asked !== null && asked in ORIGIN_WORDS ? (asked as OriginChoice) : 'caller';
}
