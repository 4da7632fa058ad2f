import { GoogleAccessTokens } from '../credentials/google-access-tokens.js';
import { afterEach, describe, expect, it } from 'vitest';
import { configSchema, type Config } from '../config/schema.js';
import { AllAttemptsFailedError } from '../errors/all-attempts-failed-error.js';
import { GatewayError } from '../errors/gateway-error.js';
import { ConnectionLoad } from '../health/connection-load.js';
import { Cooling } from '../health/cooling.js';
import type { HealthDoor, Out, Permit } from '../health/health-door.js';
import { HealthRegistry } from '../health/health-registry.js';
import { LocalHealthDoor } from '../health/local-health-door.js';
import { PROBE_REQUEST } from '../health/probe-request.js';
import { adapterFor } from '../providers/registry.js';
import type { UpstreamRequest } from '../providers/spec.js';
import { LatencyTracker } from '../health/latency-tracker.js';
import { resolveRoute, type ResolvedRoute, type ResolvedTarget } from '../routing/resolve-route.js';
import type { Transport, UpstreamResponse } from '../transport/send-upstream.js';
import { UpstreamBody } from '../transport/upstream-body.js';
import type { AttemptRecord } from '../core/attempt-record.js';
import { Cancellation } from '../core/cancellation.js';
import { chatOperation } from './chat-operation.js';
import { RetryBudgets } from './retry-budget.js';
import { FORCED_FAILURE_MESSAGE } from './attempt-loop.js';
import type { EngineDeps } from './route-call.js';
import { runRoute } from './run-route.js';

/** What the fake upstream answers a model with, one entry per request it gets (the last repeats). */
type Reply = { status: number; headers?: Record<string, string>; body?: unknown } | 'silent';

const OK: Reply = { status: 200, body: { id: 'chatcmpl-1', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] } };
const UNAVAILABLE: Reply = { status: 503, body: { error: { message: 'unavailable', type: 'server_error' } } };
const rateLimited = (retryAfterS: number): Reply => ({ status: 429, headers: { 'retry-after': String(retryAfterS) }, body: { error: { message: 'slow down', type: 'rate_limit_error', code: 'rate_limit_exceeded' } } });

/**
 * A transport that never touches the network: it answers each model from its script and
 * remembers which models it was sent, in order. A `silent` model answers nothing until the
 * attempt is cancelled.
 */
function fakeTransport(script: Record<string, Reply[]>, onSend?: (model: string) => void) {
  const sent: string[] = [];
  const transport = {
    send(upstream: UpstreamRequest, options: { cancellation: Cancellation; onSent?: () => void }): Promise<UpstreamResponse> {
      if (options.cancellation.aborted) return Promise.reject(options.cancellation.reason);
      const { model } = JSON.parse(String(upstream.body)) as { model: string };
      sent.push(model);
      options.onSent?.();
      onSend?.(model);
      const replies = script[model] ?? [OK];
      const reply = replies.length > 1 ? replies.shift()! : replies[0]!;
      if (reply === 'silent') {
        return new Promise((_resolve, reject) => {
          options.cancellation.onAbort((reason) => reject(reason));
        });
      }
      const body = new UpstreamBody();
      body.push(Buffer.from(JSON.stringify(reply.body ?? {})));
      body.end();
      return Promise.resolve({ statusCode: reply.status, headers: { 'content-type': 'application/json', ...reply.headers }, body });
    },
  };
  return { transport: transport as unknown as Transport, sent };
}

function configOf(routes: Record<string, unknown>): Config {
  return configSchema.parse({
    connections: {
      east: { provider: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1', api_key: 'key-east' },
      west: { provider: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1', api_key: 'key-west' },
    },
    routes,
  });
}

const FAST = { retries: 1, backoff: { base_ms: 1, max_ms: 1, jitter: 'none' } };

/** The engine with real health state (breaker, cooling, load) behind the door, and a fake upstream. */
function engineFor(config: Config, script: Record<string, Reply[]>, onSend?: (model: string) => void) {
  const { transport, sent } = fakeTransport(script, onSend);
  const registry = new HealthRegistry(
    { onBreaker: () => undefined, onStructural: () => undefined, onStepDown: () => undefined, onForgotten: () => undefined },
    { config: () => config },
  );
  const exhausted: string[] = [];
  const deps: EngineDeps = {
    health: new LocalHealthDoor({ registry, cooling: new Cooling(), load: new ConnectionLoad(), latency: new LatencyTracker(), config: () => config }),
    transport,
    accessTokens: new GoogleAccessTokens(),
    adapterFor: (target) => adapterFor(target.connection, target.routedModel),
    baseUrlFor: (target) => target.connection.base_url!,
    retryBudgets: new RetryBudgets(Date.now, (route) => exhausted.push(route)),
  };
  return { deps, sent, registry, exhausted };
}

function ask(deps: EngineDeps, route: ResolvedRoute, options: { deadlineMs?: number; caller?: Cancellation; forcedFailures?: ReadonlySet<ResolvedTarget> } = {}) {
  const startedAtMs = Date.now();
  return runRoute(
    {
      route,
      caller: options.caller ?? new Cancellation(),
      requestStartedAtMs: startedAtMs,
      deadlineAtMs: startedAtMs + (options.deadlineMs ?? 10_000),
      waited: { ms: 0 },
      ...(options.forcedFailures ? { forcedFailures: options.forcedFailures } : {}),
    },
    chatOperation(PROBE_REQUEST, 'first_token'),
    deps,
  );
}

async function failureOf(promise: Promise<unknown>): Promise<AllAttemptsFailedError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AllAttemptsFailedError);
  return error as AllAttemptsFailedError;
}

const kindsOf = (attempts: readonly AttemptRecord[]) => attempts.map((attempt) => `${attempt.connection}/${attempt.model} ${attempt.kind}`);

describe('the attempt loop', () => {
  it('retries a server error on the same target, and the retry serves', async () => {
    const config = configOf({ chat: { ...FAST, targets: [{ connection: 'east', model: 'a' }, { connection: 'west', model: 'b' }] } });
    const { deps, sent } = engineFor(config, { a: [UNAVAILABLE, OK] });
    const served = await ask(deps, resolveRoute(config, 'chat'));
    expect(kindsOf(served.attempts)).toEqual(['east/a server_error', 'east/a ok']);
    expect(served.served.connectionName).toBe('east');
    expect(sent).toEqual(['a', 'a']);
  });

  it('fails over once the retries are spent, and at once for a kind whose rule is failover', async () => {
    const config = configOf({
      retrying: { ...FAST, targets: [{ connection: 'east', model: 'a' }, { connection: 'west', model: 'b' }] },
      throttled: { ...FAST, retry_after_wait_max_ms: 0, targets: [{ connection: 'east', model: 'c' }, { connection: 'west', model: 'd' }] },
    });
    const { deps, sent } = engineFor(config, { a: [UNAVAILABLE], c: [rateLimited(1)] });
    expect(kindsOf((await ask(deps, resolveRoute(config, 'retrying'))).attempts)).toEqual(['east/a server_error', 'east/a server_error', 'west/b ok']);
    expect(kindsOf((await ask(deps, resolveRoute(config, 'throttled'))).attempts)).toEqual(['east/c rate_limit', 'west/d ok']);
    expect(sent).toEqual(['a', 'a', 'b', 'c', 'd']);
  });

  it('a moderation refusal stops: no other target is asked the same question', async () => {
    const config = configOf({ chat: { ...FAST, targets: [{ connection: 'east', model: 'a' }, { connection: 'west', model: 'b' }] } });
    const refused: Reply = { status: 400, body: { error: { message: 'flagged', type: 'invalid_request_error', code: 'content_policy_violation' } } };
    const { deps, sent } = engineFor(config, { a: [refused] });
    const failure = await failureOf(ask(deps, resolveRoute(config, 'chat')));
    expect(kindsOf(failure.attempts)).toEqual(['east/a moderation']);
    expect(sent).toEqual(['a']);
  });

  it('a spent retry budget turns retries into failover, and says so', async () => {
    // Two tokens, none earned back: the first two requests retry, the third may not.
    const config = configOf({ storm: { ...FAST, retry_budget: { ratio: 0, min_per_second: 0 }, health: { consecutive_failures: 10 }, targets: [{ connection: 'east', model: 'a' }, { connection: 'west', model: 'b' }] } });
    const { deps, exhausted } = engineFor(config, { a: [UNAVAILABLE] });
    const route = resolveRoute(config, 'storm');
    for (let request = 0; request < 2; request++) {
      expect(kindsOf((await ask(deps, route)).attempts)).toEqual(['east/a server_error', 'east/a server_error', 'west/b ok']);
    }
    expect(exhausted).toEqual([]);
    expect(kindsOf((await ask(deps, route)).attempts)).toEqual(['east/a server_error', 'west/b ok']);
    expect(exhausted).toEqual(['storm']);
  });

  it('a rate-limited target cools: later requests skip it without an attempt, and when all cool the answer says until when', async () => {
    const config = configOf({ chat: { ...FAST, retry_after_wait_max_ms: 0, targets: [{ connection: 'east', model: 'a' }, { connection: 'west', model: 'b' }] } });
    const { deps, sent } = engineFor(config, { a: [rateLimited(60)], b: [OK, rateLimited(30)] });
    const route = resolveRoute(config, 'chat');
    expect(kindsOf((await ask(deps, route)).attempts)).toEqual(['east/a rate_limit', 'west/b ok']);
    expect(kindsOf((await failureOf(ask(deps, route))).attempts)).toEqual(['west/b rate_limit']);
    expect(sent).toEqual(['a', 'b', 'b']);

    const failure = await failureOf(ask(deps, route));
    expect(failure.attempts).toEqual([]);
    // West's 30 s ends first.
    expect(failure.coolingEndsInMs).toBeGreaterThan(28_000);
    expect(failure.coolingEndsInMs).toBeLessThanOrEqual(30_000);
    expect(sent).toHaveLength(3);
  });

  it('never ejects the last option: an ejected only target is still tried', async () => {
    const config = configOf({ only: { retries: 0, health: { consecutive_failures: 1, eject_base_s: 60 }, targets: [{ connection: 'east', model: 'a' }] } });
    const { deps, sent, registry } = engineFor(config, { a: [UNAVAILABLE] });
    const route = resolveRoute(config, 'only');
    await failureOf(ask(deps, route));
    expect(registry.all()[0]!.breaker.state).toBe('ejected');
    const failure = await failureOf(ask(deps, route));
    expect(kindsOf(failure.attempts)).toEqual(['east/a server_error']);
    expect(sent).toEqual(['a', 'a']);
  });

  it('with every target out, the one whose ejection ends soonest is the last resort; an ejected target is otherwise passed over', async () => {
    const config = configOf({
      long: { retries: 0, health: { consecutive_failures: 1, eject_base_s: 600 }, targets: [{ connection: 'east', model: 'a' }] },
      short: { retries: 0, health: { consecutive_failures: 1, eject_base_s: 60 }, targets: [{ connection: 'west', model: 'b' }] },
      both: { retries: 0, targets: [{ connection: 'east', model: 'a' }, { connection: 'west', model: 'b' }] },
    });
    const { deps, sent } = engineFor(config, { a: [UNAVAILABLE], b: [UNAVAILABLE, OK] });
    await failureOf(ask(deps, resolveRoute(config, 'long')));
    await failureOf(ask(deps, resolveRoute(config, 'short')));
    const served = await ask(deps, resolveRoute(config, 'both'));
    expect(kindsOf(served.attempts)).toEqual(['west/b ok']);
    expect(sent).toEqual(['a', 'b', 'b']);
  });

  it('names the targets it passed over: cooling ones the plan left out, with when they cool down', async () => {
    const config = configOf({ cool: { retries: 0, retry_after_wait_max_ms: 0, targets: [{ connection: 'east', model: 'c' }, { connection: 'west', model: 'd' }] } });
    const { deps, sent } = engineFor(config, { c: [rateLimited(30)] });
    const route = resolveRoute(config, 'cool');
    const first = await ask(deps, route);
    expect(kindsOf(first.attempts)).toEqual(['east/c rate_limit', 'west/d ok']);
    expect(first.skipped).toBeUndefined();
    const second = await ask(deps, route);
    expect(kindsOf(second.attempts)).toEqual(['west/d ok']);
    expect(second.skipped).toEqual([{ connection: 'east', model: 'c', reason: 'cooling', kind: 'rate_limit', untilMs: expect.any(Number) }]);
    expect(second.skipped![0]!.untilMs! - Date.now()).toBeGreaterThan(28_000);
    expect(sent).toEqual(['c', 'd', 'd']);
  });

  it('a target tried as the last resort is an attempt, not a skip', async () => {
    const config = configOf({ only: { retries: 0, health: { consecutive_failures: 1, eject_base_s: 60 }, targets: [{ connection: 'east', model: 'a' }] } });
    const { deps } = engineFor(config, { a: [UNAVAILABLE] });
    const route = resolveRoute(config, 'only');
    await failureOf(ask(deps, route));
    const failure = await failureOf(ask(deps, route));
    expect(kindsOf(failure.attempts)).toEqual(['east/a server_error']);
    expect(failure.skipped).toBeUndefined();
  });

  it('the deadline ends a request against a silent target, and no attempt starts after it', async () => {
    const config = configOf({ chat: { ...FAST, targets: [{ connection: 'east', model: 'a' }, { connection: 'west', model: 'b' }] } });
    const { deps, sent } = engineFor(config, { a: ['silent'], b: ['silent'] });
    const startedAtMs = Date.now();
    const failure = await failureOf(ask(deps, resolveRoute(config, 'chat'), { deadlineMs: 300 }));
    expect(Date.now() - startedAtMs).toBeLessThan(2_000);
    expect(kindsOf(failure.attempts)).toEqual(['east/a timeout']);
    expect(sent).toEqual(['a']);
  });

  it('a caller who went away stops the loop', async () => {
    const config = configOf({ chat: { ...FAST, targets: [{ connection: 'east', model: 'a' }, { connection: 'west', model: 'b' }] } });
    const caller = new Cancellation();
    // The caller leaves once the first target has the request.
    const { deps, sent } = engineFor(config, { a: ['silent'] }, () => queueMicrotask(() => caller.abort(new Error('caller left'))));
    const failure = await failureOf(ask(deps, resolveRoute(config, 'chat'), { caller }));
    expect(kindsOf(failure.attempts)).toEqual(['east/a cancelled']);
    expect(sent).toEqual(['a']);
  });
});

describe('the attempt loop behind a fake health door', () => {
  let settled: AttemptRecord[] = [];
  afterEach(() => {
    settled = [];
  });

  /** Admits what `answers` says per connection; permits record what they were settled with. */
  function doorWith(answers: Record<string, Out | 'permit'>): HealthDoor {
    return {
      plan: (route) => route.targets,
      admit: (target): Permit | Out => {
        const answer = answers[target.connectionName] ?? 'permit';
        if (answer !== 'permit') return answer;
        return { out: false, observeHeaders: () => undefined, firstTokenTimeout: (timeouts) => ({ timeoutMs: timeouts.first_token_ms === 'auto' ? timeouts.first_token_max_ms : timeouts.first_token_ms, source: 'configured' as const, guess: false }), hedgeAfterMs: () => undefined, settle: (record) => settled.push(record) };
      },
      coolingEndsAtMs: () => undefined,
      coolingUntilMs: () => undefined,
      outCauseOf: () => ({ structural: undefined, ejectedBy: undefined }),
    };
  }

  function depsWith(health: HealthDoor, script: Record<string, Reply[]> = {}) {
    const { transport, sent } = fakeTransport(script);
    const deps: EngineDeps = {
      health,
      transport,
      accessTokens: new GoogleAccessTokens(),
      adapterFor: (target) => adapterFor(target.connection, target.routedModel),
      baseUrlFor: (target) => target.connection.base_url!,
      retryBudgets: new RetryBudgets(),
    };
    return { deps, sent };
  }

  it('every permit is settled once, with its attempt\'s record', async () => {
    const config = configOf({ chat: { ...FAST, targets: [{ connection: 'east', model: 'a' }, { connection: 'west', model: 'b' }] } });
    const { deps } = depsWith(doorWith({}), { a: [UNAVAILABLE] });
    const served = await ask(deps, resolveRoute(config, 'chat'));
    expect(settled).toEqual(served.attempts);
    expect(kindsOf(settled)).toEqual(['east/a server_error', 'east/a server_error', 'west/b ok']);
  });

  it('every target busy is a 503 overloaded, with nothing sent', async () => {
    const config = configOf({ chat: { targets: [{ connection: 'east', model: 'a' }, { connection: 'west', model: 'b' }] } });
    const busy: Out = { out: true, reason: 'busy', untilMs: Date.now() };
    const { deps, sent } = depsWith(doorWith({ east: busy, west: busy }));
    const error = await ask(deps, resolveRoute(config, 'chat')).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 503, code: 'overloaded' });
    expect(sent).toEqual([]);
  });

  it('a cooling target is passed over and is no last resort; a structurally faulted one is', async () => {
    const config = configOf({ chat: { retries: 0, targets: [{ connection: 'east', model: 'a' }, { connection: 'west', model: 'b' }] } });
    const cooling: Out = { out: true, reason: 'cooling', untilMs: Date.now() + 1_000 };
    const structural: Out = { out: true, reason: 'structural', untilMs: Date.now() + 60_000 };
    let lastResorts = 0;
    const door = doorWith({ east: cooling });
    const health: HealthDoor = {
      ...door,
      admit: (target, route, options) => {
        if (options?.lastResort) {
          lastResorts += 1;
          return door.admit(target, route, {});
        }
        return target.connectionName === 'west' ? structural : door.admit(target, route, options);
      },
    };
    const { deps, sent } = depsWith(health);
    const served = await ask(deps, resolveRoute(config, 'chat'));
    expect(kindsOf(served.attempts)).toEqual(['west/b ok']);
    expect(lastResorts).toBe(1);
    expect(sent).toEqual(['b']);
  });
});

describe('forced failures (the fallback drill\'s chain walk)', () => {
  it('fail inside the gateway once each, with no provider called and no health fed, and the next target answers', async () => {
    const config = configOf({
      chain: { ...FAST, targets: [{ connection: 'east', model: 'a' }, { connection: 'west', model: 'b' }, { connection: 'east', model: 'c' }] },
    });
    const { deps, sent, registry } = engineFor(config, {});
    const route = resolveRoute(config, 'chain');
    const served = await ask(deps, route, { forcedFailures: new Set(route.targets.slice(0, 2)) });
    expect(kindsOf(served.attempts)).toEqual(['east/a server_error', 'west/b server_error', 'east/c ok']);
    expect(served.attempts[0]).toMatchObject({ errorType: 'forced_failure', message: FORCED_FAILURE_MESSAGE, latencyMs: 0, committed: false });
    // Neither forced target was sent anything, retried, or counted against.
    expect(sent).toEqual(['c']);
    expect(registry.all().map((deployment) => deployment.key)).toEqual(['east/c']);
  });

  it('follow the route\'s rule for server errors: one that stops never reaches the fallback', async () => {
    const config = configOf({
      stopping: { ...FAST, on: { server_error: 'stop' }, targets: [{ connection: 'east', model: 'a' }, { connection: 'west', model: 'b' }] },
    });
    const { deps, sent } = engineFor(config, {});
    const route = resolveRoute(config, 'stopping');
    const failure = await failureOf(ask(deps, route, { forcedFailures: new Set([route.targets[0]!]) }));
    expect(kindsOf(failure.attempts)).toEqual(['east/a server_error']);
    expect(sent).toEqual([]);
  });
});
