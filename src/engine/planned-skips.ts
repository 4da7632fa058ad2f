import type { SkippedTarget, SkipReason } from '../core/skipped-target.js';
import type { ResolvedTarget } from '../routing/resolve-route.js';

/** A planned target passed over without an attempt; ejected and structural ones are a last resort's candidates. */
export interface Skip {
  target: ResolvedTarget;
  reason: SkipReason;
  untilMs: number | undefined;
  cause: string | undefined;
}

/** Of the ejected and structurally out targets, the one whose time out ends soonest. */
export function lastResortCandidate(skips: readonly Skip[]): Skip | undefined {
  let soonest: Skip | undefined;
  for (const skip of skips) {
    if (skip.reason !== 'ejected' && skip.reason !== 'structural') continue;
    if (soonest === undefined || skip.untilMs! < soonest.untilMs!) soonest = skip;
  }
  return soonest;
}

/** The skips as the request's record names them; undefined when there were none. */
export function skippedTargetsOf(skips: readonly Skip[] | undefined): SkippedTarget[] | undefined {
  if (skips === undefined || skips.length === 0) return undefined;
  return skips.map(({ target, reason, untilMs, cause }) => ({
    connection: target.connectionName,
    model: target.routedModel,
    reason,
    ...(cause === undefined ? {} : { cause }),
    // A structural fault with no probe due is out until further notice.
    ...(untilMs === undefined || untilMs === Number.MAX_SAFE_INTEGER ? {} : { untilMs }),
  }));
}
