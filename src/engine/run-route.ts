import { AllAttemptsFailedError } from '../errors/all-attempts-failed-error.js';
import { GatewayError } from '../errors/gateway-error.js';
import { overloadedError } from '../errors/overloaded-error.js';
import { boundFirst } from '../routing/plan-targets.js';
import type { ResolvedRoute, ResolvedTarget } from '../routing/resolve-route.js';
import type { EngineDeps, RouteCall, Served } from './route-call.js';
import { AttemptLoop } from './attempt-loop.js';
import type { Operation } from './run-attempt.js';

/**
 * The attempt loop (docs/lifecycle.md, docs/health.md). Asks health for the route's targets in
 * order — cooling ones are left out — and tries them in turn, each only if health admits it
 * (ejected, structurally down, busy and newly cooling ones are passed over): a same-target retry
 * only for kinds whose rule is `retry`, with backoff and only while the route's retry budget
 * allows; `failover` moves on; `stop` ends. When every target was ejected or structurally out,
 * the one whose time out ends soonest is tried anyway: a breaker in front of the only backend
 * must not turn a partial failure into a total one. Returns at the first success (a stream: at
 * its commit point); otherwise throws `AllAttemptsFailedError` with every attempt.
 */
export async function runRoute<Answer>(call: RouteCall, operation: Operation<Answer>, deps: EngineDeps): Promise<Served<Answer>> {
  const { route } = call;
  const accepts = operation.accepts === undefined ? undefined : (target: ResolvedTarget) => operation.accepts!(deps.adapterFor(target));
  if (accepts !== undefined && !route.targets.some(accepts)) {
    throw new GatewayError(`No target of model '${route.name}' serves ${operation.name}.`, {
      status: 400,
      code: 'model_not_supported',
      type: 'invalid_request_error',
      param: 'model',
    });
  }
  const loop = new AttemptLoop(call, operation, deps, deps.retryBudgets.for(routeLabel(route), route.policy.retry_budget));
  const planned = boundFirst(deps.health.plan(route), call.boundTarget);
  // Only cooling shortens the plan: the targets it left out are named in the record.
  if (planned.length < route.targets.length) {
    for (const target of route.targets) if (!planned.includes(target) && (accepts === undefined || accepts(target))) loop.skip(target, 'cooling', deps.health.coolingUntilMs(target));
  }
  // Most operations take every target: their plan is walked as it is, not copied.
  const targets = accepts === undefined ? planned : planned.filter(accepts);

  for (let index = 0; index < targets.length; index++) {
    const target = targets[index]!;
    if (loop.hedgedTo(target)) continue;
    if (!loop.acceptsContext(target)) {
      loop.skip(target, 'context_window', undefined);
      continue;
    }
    const result = await loop.tryTarget(target, { rest: targets.slice(index + 1), lastResort: false });
    if (result.type === 'served') return result.outcome;
    if (result.type === 'stop') break;
  }
  const lastResort = loop.attempts.length === 0 && !call.caller.aborted ? loop.lastResortCandidate() : undefined;
  if (lastResort) {
    loop.unskip(lastResort);
    const result = await loop.tryTarget(lastResort.target, { rest: [], lastResort: true });
    if (result.type === 'served') return result.outcome;
  }
  if (loop.attempts.length === 0 && loop.skippedBusy) {
    throw overloadedError('Every target of this route is at its in-flight limit; try again shortly.');
  }
  const coolingEndsAtMs = deps.health.coolingEndsAtMs(route);
  throw new AllAttemptsFailedError(loop.attempts, coolingEndsAtMs === undefined ? undefined : Math.max(0, coolingEndsAtMs - Date.now()), loop.skippedTargets());
}

/** Direct `connection/model` requests are labelled by connection, keeping label values bounded. */
export function routeLabel(route: ResolvedRoute): string {
  return route.direct ? `${route.targets[0]!.connectionName}/*` : route.name;
}
