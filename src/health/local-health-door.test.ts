import { describe, expect, it } from 'vitest';
import { configSchema } from '../config/schema.js';
import type { AttemptRecord } from '../core/attempt-record.js';
import type { FailureKind } from '../core/failure-kind.js';
import { resolveRoute } from '../routing/resolve-route.js';
import { LatencyTracker } from './latency-tracker.js';
import { ConnectionLoad } from './connection-load.js';
import { Cooling } from './cooling.js';
import type { Out, Permit } from './health-door.js';
import { HealthRegistry } from './health-registry.js';
import { LocalHealthDoor } from './local-health-door.js';

const config = configSchema.parse({
  connections: { east: { provider: 'mock', max_in_flight: 1 }, west: { provider: 'mock' } },
  routes: {
    chat: {
      health: { consecutive_failures: 1, eject_base_s: 60 },
      targets: [{ connection: 'east', model: 'a' }, { connection: 'east', model: 'b' }, { connection: 'west', model: 'c' }],
    },
  },
});
const route = resolveRoute(config, 'chat');
const [eastA, eastB, westC] = route.targets as [(typeof route.targets)[number], (typeof route.targets)[number], (typeof route.targets)[number]];

function door() {
  const registry = new HealthRegistry(
    { onBreaker: () => undefined, onStructural: () => undefined, onStepDown: () => undefined, onForgotten: () => undefined },
    { config: () => config },
  );
  const load = new ConnectionLoad();
  const latency = new LatencyTracker();
  return { door: new LocalHealthDoor({ registry, cooling: new Cooling(), load, latency, config: () => config }), load, latency };
}

function record(kind: FailureKind, extra: Partial<AttemptRecord> = {}): AttemptRecord {
  return { n: 1, connection: 'east', provider: 'mock', model: 'a', kind, startedMs: 0, latencyMs: 1, committed: false, malformedEvents: 0, ...extra };
}

/** Without shared trials every answer is at hand: a promise here would be a bug. */
function permitted(answer: Permit | Out | Promise<Permit | Out>): Permit {
  expect(answer).not.toBeInstanceOf(Promise);
  expect((answer as Permit | Out).out).toBe(false);
  return answer as Permit;
}

describe('LocalHealthDoor', () => {
  it('a streamed success teaches the deployment its first-token time from the send; a whole answer or a failure does not', () => {
    const { door: health, latency } = door();
    const auto = { ...route.policy.timeouts, first_token_ms: 'auto' as const };
    const streamed = permitted(health.admit(westC, route));
    // Nothing measured anywhere yet: the cold default.
    expect(streamed.firstTokenTimeout(auto, { streamedInputTokens: 40, lastOption: false, reasoning: false })).toEqual({ timeoutMs: 8_000, source: 'cold', guess: true });
    streamed.settle(record('ok', { connection: 'west', model: 'c', sentMs: 30, firstTokenMs: 130 }));
    const whole = permitted(health.admit(westC, route));
    whole.firstTokenTimeout(auto, { streamedInputTokens: undefined, lastOption: false, reasoning: false });
    whole.settle(record('ok', { connection: 'west', model: 'c', latencyMs: 900 }));
    const failed = permitted(health.admit(westC, route));
    failed.firstTokenTimeout(auto, { streamedInputTokens: 40, lastOption: false, reasoning: false });
    failed.settle(record('timeout', { connection: 'west', model: 'c', sentMs: 5 }));

    const recent = latency.recentFirstTokens('west/c');
    expect(recent.samples).toBe(1);
    expect(recent.quantileMs(0.99)).toBe(100);
    expect(recent.typicalInputTokens).toBe(40);
  });

  it('a stream cut at a guessed first-token timeout counts for nothing against the deployment, joins its samples as a silence, and widens its next timeout; a cut past the cold guess counts', () => {
    const { door: health, latency } = door();
    const auto = { ...route.policy.timeouts, first_token_ms: 'auto' as const };
    const attempt = { streamedInputTokens: 40, lastOption: false, reasoning: false };
    // Three guesses cut in a row: `consecutive_failures: 1` would have ejected it at the first.
    for (const timeoutMs of [8_000, 16_000]) {
      const permit = permitted(health.admit(westC, route));
      const timeout = permit.firstTokenTimeout(auto, attempt);
      expect(timeout).toEqual({ timeoutMs, source: timeoutMs === 8_000 ? 'cold' : 'widened', guess: timeoutMs === 8_000 });
      const cut = record('timeout', { connection: 'west', model: 'c', errorType: 'first_token', firstTokenTimeoutMs: timeout.timeoutMs, firstTokenSource: timeout.source });
      permit.settle(cut);
      if (timeout.source === 'cold') expect(health.admit(westC, route)).toMatchObject({ out: false });
    }
    expect(latency.recentFirstTokens('west/c').quantileMs(1)).toBe(16_000);
    // Widened past the cold guess it is no longer a guess: a cut there counts, and ejects it here.
    expect(health.admit(westC, route)).toMatchObject({ out: true, reason: 'ejected' });
  });

  it('a number of the route is the timeout in force, whatever the deployment has learned', () => {
    const { door: health } = door();
    expect(permitted(health.admit(westC, route)).firstTokenTimeout({ ...route.policy.timeouts, first_token_ms: 2_500 }, { streamedInputTokens: 40, lastOption: false, reasoning: false })).toEqual({ timeoutMs: 2_500, source: 'configured', guess: false });
  });

  it('a settled 429 cools the deployment: new attempts are out until the Retry-After ends, a chosen retry is not, and the plan leaves it out', () => {
    const { door: health } = door();
    permitted(health.admit(eastA, route)).settle(record('rate_limit', { retryAfterMs: 5_000 }));
    const answer = health.admit(eastA, route);
    expect(answer).toMatchObject({ out: true, reason: 'cooling' });
    expect((answer as Out).untilMs - Date.now()).toBeGreaterThan(4_000);
    permitted(health.admit(eastA, route, { retry: true })).settle(record('ok'));
    expect(health.plan(route)).toEqual([eastB, westC]);
    expect(health.coolingEndsAtMs(route)).toBe((answer as Out).untilMs);
  });

  it('a rejected key takes out every model of its connection', () => {
    const { door: health } = door();
    permitted(health.admit(eastA, route)).settle(record('credential'));
    expect(health.admit(eastB, route)).toMatchObject({ out: true, reason: 'structural' });
    permitted(health.admit(westC, route)).settle(record('ok', { connection: 'west', model: 'c' }));
  });

  it('an ejected target is out until its ejection ends, but a last resort gets through', () => {
    const { door: health } = door();
    permitted(health.admit(westC, route)).settle(record('server_error', { connection: 'west', model: 'c' }));
    const answer = health.admit(westC, route);
    expect(answer).toMatchObject({ out: true, reason: 'ejected' });
    expect((answer as Out).untilMs - Date.now()).toBeGreaterThan(59_000);
    permitted(health.admit(westC, route, { lastResort: true })).settle(record('ok', { connection: 'west', model: 'c' }));
  });

  it('a connection at max_in_flight is busy until a permit on it is settled', () => {
    const { door: health, load } = door();
    const permit = permitted(health.admit(eastA, route));
    expect(health.admit(eastB, route)).toMatchObject({ out: true, reason: 'busy' });
    permit.settle(record('ok'));
    expect(load.inFlight('east')).toBe(0);
    permitted(health.admit(eastB, route)).settle(record('ok', { model: 'b' }));
  });
});
