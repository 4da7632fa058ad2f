import type { AttemptFailureKind } from '../core/failure-policy.js';
import type { SkippedTarget, SkipReason } from '../core/skipped-target.js';
import type { OutCause } from '../health/health-door.js';
import type { ResolvedTarget } from '../routing/resolve-route.js';

/** A planned target passed over without an attempt; ejected and structural ones are a last resort's candidates. */
export interface Skip {
  target: ResolvedTarget;
  reason: SkipReason;
  untilMs: number | undefined;
  /** What health said of why it is out; undefined for a reason health does not decide (`context_window`) or that says nothing of the deployment (`busy`). */
  cause: OutCause | undefined;
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
  return skips.map(({ target, reason, untilMs, cause }) => {
    const kind = failureOfSkip(reason, cause);
    return {
      connection: target.connectionName,
      model: target.routedModel,
      reason,
      ...(cause?.structural === undefined ? {} : { cause: cause.structural }),
      ...(kind === undefined ? {} : { kind }),
      // A structural fault with no probe due is out until further notice.
      ...(untilMs === undefined || untilMs === Number.MAX_SAFE_INTEGER ? {} : { untilMs }),
    };
  });
}

/** The failure a skip stands for (`SkippedTarget.kind`). */
function failureOfSkip(reason: SkipReason, cause: OutCause | undefined): AttemptFailureKind | undefined {
  if (cause?.structural !== undefined) return cause.structural === 'persistent_429' ? 'rate_limit' : (cause.structural as AttemptFailureKind);
  switch (reason) {
    case 'cooling':
      return 'rate_limit';
    // A replica of an older version shares an ejection without its kind: a breaker opens on transient faults.
    case 'ejected':
      return cause?.ejectedBy ?? 'server_error';
    case 'context_window':
      return 'context_length';
    case 'busy':
    case 'structural':
      return undefined;
  }
}
