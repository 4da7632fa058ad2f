import { describe, expect, it } from 'vitest';
import { type BreakerPermit, Breaker, type BreakerSettings, type BreakerTransition } from './breaker.js';
import { type BreakerOutcome, breakerOutcomeOf } from './breaker-outcome.js';

const SETTINGS: BreakerSettings = {
  consecutive_failures: 3,
  error_ratio: 0.5,
  min_requests: 10,
  window_s: 10,
  eject_base_s: 10,
  eject_max_s: 40,
};
/** Ratio tests must not trip on the consecutive count first. */
const RATIO_ONLY: BreakerSettings = { ...SETTINGS, consecutive_failures: 1_000 };

function setup(settings: BreakerSettings = SETTINGS, startMs = 0) {
  const clock = { nowMs: startMs };
  const transitions: BreakerTransition[] = [];
  const breaker = new Breaker(settings, () => clock.nowMs, (change) => transitions.push(change));
  /** Admits one request and records its outcome at once. */
  const send = (outcome: BreakerOutcome): void => {
    const admission = breaker.admit();
    if (admission === undefined) throw new Error(`not admitted in state ${breaker.state}`);
    breaker.record(admission, outcome);
  };
  const sendMany = (outcomes: string): void => {
    const names: Record<string, BreakerOutcome> = { S: 'success', F: 'failure', N: 'neutral' };
    for (const letter of outcomes) {
      const outcome = names[letter];
      if (outcome === undefined) throw new Error(`unknown outcome letter ${letter}`);
      send(outcome);
    }
  };
  return { clock, transitions, breaker, send, sendMany };
}

/** Trips the breaker with consecutive failures and moves the clock to the end of the ejection. */
function ejectThenWait(context: ReturnType<typeof setup>): void {
  context.sendMany('FFF');
  context.clock.nowMs = context.breaker.ejectedUntilMs ?? Number.NaN;
}

function trial(breaker: Breaker): BreakerPermit {
  const admission = breaker.admit();
  expect(admission).toEqual({ epoch: expect.any(Number), trial: true });
  return admission!;
}

describe('Breaker: closed → ejected', () => {
  it('trips on consecutive failures, for eject_base_s', () => {
    const context = setup(SETTINGS, 5_000);
    const { breaker, transitions, sendMany } = context;
    sendMany('FF');
    expect(breaker.state).toBe('closed');
    context.clock.nowMs = 6_000;
    sendMany('F');
    expect(breaker.state).toBe('ejected');
    expect(breaker.reason).toBe('3 consecutive failures');
    expect(breaker.sinceMs).toBe(6_000);
    expect(breaker.ejectedUntilMs).toBe(16_000);
    expect(breaker.consecutiveEjections).toBe(1);
    expect(transitions).toEqual([{ from: 'closed', to: 'ejected', reason: '3 consecutive failures', atMs: 6_000 }]);
  });

  it('a success breaks the run of failures', () => {
    const { breaker, sendMany } = setup();
    sendMany('FFSFF');
    expect(breaker.state).toBe('closed');
    sendMany('F');
    expect(breaker.state).toBe('ejected');
  });

  it('trips on the error ratio once min_requests outcomes are in the window', () => {
    const { breaker, transitions, sendMany } = setup(RATIO_ONLY);
    sendMany('FSFSFSFSF');
    expect(breaker.state).toBe('closed'); // 5 of 9 is over the ratio, but 9 < min_requests
    sendMany('F');
    expect(breaker.state).toBe('ejected');
    expect(breaker.reason).toBe('error ratio 0.60 over 10 requests in 10 s');
    expect(transitions).toHaveLength(1);
  });

  it('stays closed below the ratio however many requests', () => {
    const { breaker, sendMany } = setup(RATIO_ONLY);
    sendMany('FSSFSSFSSFSSFSS');
    expect(breaker.state).toBe('closed');
  });

  it('never trips below min_requests, even at 100% errors', () => {
    const { breaker, sendMany } = setup({ ...RATIO_ONLY, min_requests: 20 });
    sendMany('FFFFFFFFFFFFFFFFFFF');
    expect(breaker.state).toBe('closed');
    sendMany('F');
    expect(breaker.reason).toBe('error ratio 1.00 over 20 requests in 10 s');
  });

  it('outcomes older than window_s seconds leave the window', () => {
    const context = setup(RATIO_ONLY, 1_000);
    const { breaker, sendMany, clock } = context;
    sendMany('FFFFF');
    clock.nowMs = 11_000; // the second that held them is now 10 s old
    sendMany('FFFFF');
    expect(breaker.state).toBe('closed');
    sendMany('FFFF');
    expect(breaker.state).toBe('closed');
    sendMany('F');
    expect(breaker.reason).toBe('error ratio 1.00 over 10 requests in 10 s');
  });

  it('outcomes in the last window_s seconds still count', () => {
    const context = setup(RATIO_ONLY, 1_000);
    context.sendMany('FFFFF');
    context.clock.nowMs = 10_999;
    context.sendMany('FFFFF');
    expect(context.breaker.state).toBe('ejected');
  });
});

describe('Breaker: ejected → half_open → closed | ejected', () => {
  it('refuses every request until the ejection time is up', () => {
    const context = setup();
    context.sendMany('FFF');
    context.clock.nowMs = 9_999;
    expect(context.breaker.admit()).toBeUndefined();
    expect(context.breaker.admit()).toBeUndefined();
    expect(context.breaker.state).toBe('ejected');
  });

  it('reports itself half-open as soon as the ejection time is up, before any request asks', () => {
    const context = setup();
    const { breaker, clock, transitions } = context;
    context.sendMany('FFF');
    expect(breaker.stateNow).toBe('ejected');
    clock.nowMs = 9_999;
    expect(breaker.stateNow).toBe('ejected');
    clock.nowMs = 10_000;
    expect(breaker.stateNow).toBe('half_open');
    // Reporting moves nothing: the next request to ask is still the trial.
    expect(breaker.state).toBe('ejected');
    expect(transitions).toHaveLength(1);
    const permit = trial(breaker);
    expect(breaker.stateNow).toBe('half_open');
    breaker.record(permit, 'failure');
    expect(breaker.stateNow).toBe('ejected');
  });

  it('when the time is up, admits exactly one trial request', () => {
    const context = setup();
    ejectThenWait(context);
    const { breaker, transitions } = context;
    trial(breaker);
    expect(breaker.state).toBe('half_open');
    expect(breaker.sinceMs).toBe(10_000);
    expect(breaker.admit()).toBeUndefined();
    expect(breaker.admit()).toBeUndefined();
    expect(transitions.at(-1)).toEqual({ from: 'ejected', to: 'half_open', reason: 'ejection time is up', atMs: 10_000 });
  });

  it('a successful trial closes it and resets the doubling', () => {
    const context = setup();
    const { breaker, transitions, clock } = context;
    ejectThenWait(context);
    breaker.record(trial(breaker), 'failure'); // second ejection: 20 s
    clock.nowMs = breaker.ejectedUntilMs!;
    clock.nowMs += 500;
    breaker.record(trial(breaker), 'success');
    expect(breaker.state).toBe('closed');
    expect(breaker.reason).toBe('trial request succeeded');
    expect(breaker.sinceMs).toBe(30_500);
    expect(breaker.consecutiveEjections).toBe(0);
    expect(breaker.ejectedUntilMs).toBeUndefined();
    expect(transitions.at(-1)).toEqual({ from: 'half_open', to: 'closed', reason: 'trial request succeeded', atMs: 30_500 });
    expect(breaker.admit()).toEqual({ epoch: expect.any(Number), trial: false });

    context.sendMany('FFF');
    expect(breaker.ejectedUntilMs).toBe(30_500 + 10_000);
  });

  it('a failed trial ejects again for twice as long, capped at eject_max_s', () => {
    const context = setup();
    const { breaker, clock, transitions } = context;
    ejectThenWait(context);
    const expectedEjectionsMs = [20_000, 40_000, 40_000];
    for (const [index, ejectionMs] of expectedEjectionsMs.entries()) {
      const startMs = clock.nowMs;
      breaker.record(trial(breaker), 'failure');
      expect(breaker.state).toBe('ejected');
      expect(breaker.reason).toBe('trial request failed');
      expect(breaker.consecutiveEjections).toBe(index + 2);
      expect(breaker.ejectedUntilMs).toBe(startMs + ejectionMs);
      clock.nowMs = breaker.ejectedUntilMs!;
    }
    expect(transitions.map((change) => `${change.from}>${change.to}`)).toEqual([
      'closed>ejected',
      'ejected>half_open',
      'half_open>ejected',
      'ejected>half_open',
      'half_open>ejected',
      'ejected>half_open',
      'half_open>ejected',
    ]);
  });

  it('a neutral trial frees the slot for another request and moves nothing', () => {
    const context = setup();
    const { breaker, transitions } = context;
    ejectThenWait(context);
    breaker.record(trial(breaker), 'neutral');
    expect(breaker.state).toBe('half_open');
    expect(transitions).toHaveLength(2);
    breaker.record(trial(breaker), 'success');
    expect(breaker.state).toBe('closed');
  });
});

describe('Breaker: readmitted by a recovery probe', () => {
  it('closes it mid-ejection, resets the doubling, and says it was the probe', () => {
    const context = setup();
    const { breaker, transitions, clock } = context;
    ejectThenWait(context);
    breaker.record(trial(breaker), 'failure'); // second ejection: 20 s
    clock.nowMs += 2_000;
    breaker.readmit();
    expect(breaker.state).toBe('closed');
    expect(breaker.reason).toBe('readmitted by a successful recovery probe');
    expect(breaker.consecutiveEjections).toBe(0);
    expect(breaker.ejectedUntilMs).toBeUndefined();
    expect(transitions.at(-1)).toEqual({ from: 'ejected', to: 'closed', reason: 'readmitted by a successful recovery probe', atMs: 12_000, byProbe: true });
    expect(breaker.admit()).toEqual({ epoch: expect.any(Number), trial: false });
    context.sendMany('FFF');
    expect(breaker.ejectedUntilMs).toBe(12_000 + 10_000);
  });

  it('closes it while half-open; the trial in flight then belongs to the ended period and moves nothing', () => {
    const context = setup();
    const { breaker } = context;
    ejectThenWait(context);
    const inFlight = trial(breaker);
    breaker.readmit();
    expect(breaker.state).toBe('closed');
    breaker.record(inFlight, 'failure');
    breaker.record(inFlight, 'failure');
    breaker.record(inFlight, 'failure');
    expect(breaker.state).toBe('closed');
  });

  it('does nothing to a closed breaker', () => {
    const { breaker, transitions } = setup();
    breaker.readmit();
    expect(breaker.state).toBe('closed');
    expect(transitions).toHaveLength(0);
  });
});

describe('Breaker: neutral outcomes', () => {
  it('never trip it, and neither break a run of failures nor dilute the ratio', () => {
    const { breaker, sendMany } = setup();
    sendMany('N'.repeat(200));
    expect(breaker.state).toBe('closed');
    sendMany('FFNNF');
    expect(breaker.reason).toBe('3 consecutive failures');

    const ratio = setup(RATIO_ONLY);
    ratio.sendMany(`FFFFF${'N'.repeat(50)}SSSS`);
    expect(ratio.breaker.state).toBe('closed');
    ratio.sendMany('S');
    expect(ratio.breaker.reason).toBe('error ratio 0.50 over 10 requests in 10 s');
  });

  it('rate_limit and the caller-side kinds are neutral; the countable kinds are failures', () => {
    expect(breakerOutcomeOf('ok')).toBe('success');
    for (const kind of ['rate_limit', 'quota_exhausted', 'credential', 'not_found', 'moderation', 'invalid_request', 'context_length', 'cancelled'] as const) {
      expect(breakerOutcomeOf(kind)).toBe('neutral');
    }
    for (const kind of ['server_error', 'timeout', 'connection'] as const) {
      expect(breakerOutcomeOf(kind)).toBe('failure');
    }

    const { breaker, send } = setup();
    for (let count = 0; count < 50; count++) send(breakerOutcomeOf('rate_limit'));
    expect(breaker.state).toBe('closed');
  });
});

describe('Breaker: late and forced outcomes', () => {
  it('outcomes of requests admitted before an ejection move nothing after it', () => {
    const context = setup();
    const { breaker, clock } = context;
    const early = [breaker.admit()!, breaker.admit()!];
    context.sendMany('FFF');
    clock.nowMs = breaker.ejectedUntilMs!;
    const trialAdmission = trial(breaker);
    breaker.record(early[0]!, 'success');
    breaker.record(early[1]!, 'failure');
    expect(breaker.state).toBe('half_open');
    expect(breaker.admit()).toBeUndefined(); // the trial still holds the slot
    breaker.record(trialAdmission, 'success');
    expect(breaker.state).toBe('closed');
  });

  it('failures of requests admitted before an ejection do not count after it closes again', () => {
    const context = setup();
    const { breaker, clock } = context;
    const early = [breaker.admit()!, breaker.admit()!, breaker.admit()!];
    context.sendMany('FFF');
    clock.nowMs = breaker.ejectedUntilMs!;
    breaker.record(trial(breaker), 'success');
    for (const admission of early) breaker.record(admission, 'failure');
    expect(breaker.state).toBe('closed');
    context.sendMany('FF');
    expect(breaker.state).toBe('closed');
  });

  it('a forced request while ejected or half-open neither closes nor re-ejects it', () => {
    const context = setup();
    const { breaker, clock } = context;
    context.sendMany('FFF');
    breaker.record(breaker.forceAdmit(), 'success');
    expect(breaker.state).toBe('ejected');
    clock.nowMs = breaker.ejectedUntilMs!;
    const trialAdmission = trial(breaker);
    breaker.record(breaker.forceAdmit(), 'failure');
    expect(breaker.state).toBe('half_open');
    expect(breaker.consecutiveEjections).toBe(1);
    breaker.record(trialAdmission, 'failure');
    expect(breaker.consecutiveEjections).toBe(2);
  });

  it('a forced request while closed counts like any other', () => {
    const { breaker } = setup();
    for (let count = 0; count < 3; count++) breaker.record(breaker.forceAdmit(), 'failure');
    expect(breaker.state).toBe('ejected');
  });
});

describe('Breaker: configure', () => {
  it('keeps the state and the running ejection; new numbers apply from the next one', () => {
    const context = setup();
    const { breaker, clock } = context;
    context.sendMany('FFF');
    breaker.configure({ ...SETTINGS, eject_base_s: 1, eject_max_s: 100 });
    expect(breaker.state).toBe('ejected');
    expect(breaker.ejectedUntilMs).toBe(10_000);
    expect(breaker.consecutiveEjections).toBe(1);
    clock.nowMs = 10_000;
    breaker.record(trial(breaker), 'failure');
    expect(breaker.ejectedUntilMs).toBe(10_000 + 2_000);
  });

  it('keeps the run of failures and applies a new threshold to it', () => {
    const { breaker, sendMany } = setup();
    sendMany('FF');
    breaker.configure({ ...SETTINGS, consecutive_failures: 5 });
    sendMany('FF');
    expect(breaker.state).toBe('closed');
    sendMany('F');
    expect(breaker.reason).toBe('5 consecutive failures');
  });

  it('a new window_s starts the ratio window afresh', () => {
    const { breaker, sendMany } = setup(RATIO_ONLY);
    sendMany('FFFFFFFFF');
    breaker.configure({ ...RATIO_ONLY, window_s: 30 });
    sendMany('F');
    expect(breaker.state).toBe('closed');
    sendMany('FFFFFFFFF');
    expect(breaker.reason).toBe('error ratio 1.00 over 10 requests in 30 s');
  });
});

describe('Breaker: adopting another replica’s state', () => {
  it('takes over an ejection as an adopted transition; a permit from before it moves nothing', () => {
    const { breaker, transitions } = setup();
    const before = breaker.admit()!;
    breaker.adopt({ state: 'ejected', sinceMs: 0, reason: '3 consecutive failures', ejectedUntilMs: 10_000, consecutiveEjections: 2 });
    expect(transitions).toEqual([{ from: 'closed', to: 'ejected', reason: '3 consecutive failures', atMs: 0, adopted: true }]);
    expect(breaker.adopted).toBe(true);
    expect(breaker.snapshot()).toEqual({ state: 'ejected', sinceMs: 0, reason: '3 consecutive failures', ejectedUntilMs: 10_000, consecutiveEjections: 2 });
    breaker.record(before, 'success');
    expect(breaker.state).toBe('ejected');
    expect(breaker.admit()).toBeUndefined();
  });

  it('the same state only takes the shared figures, with no transition', () => {
    const context = setup();
    context.sendMany('FFF');
    context.breaker.adopt({ state: 'ejected', sinceMs: 0, reason: 'elsewhere', ejectedUntilMs: 12_345, consecutiveEjections: 1 });
    expect(context.transitions.map((change) => change.to)).toEqual(['ejected']);
    expect(context.breaker.ejectedUntilMs).toBe(12_345);
    expect(context.breaker.adopted).toBe(false);
  });

  it('trialDue says whether the next admit is the half-open trial', () => {
    const context = setup();
    expect(context.breaker.trialDue).toBe(false);
    ejectThenWait(context);
    expect(context.breaker.trialDue).toBe(true);
    trial(context.breaker);
    expect(context.breaker.trialDue).toBe(false);
  });

  it('an adopted readmission closes it and forgets the failures counted here', () => {
    const context = setup();
    ejectThenWait(context);
    context.breaker.adopt({ state: 'closed', sinceMs: 10_000, reason: 'trial request succeeded', consecutiveEjections: 0 });
    expect(context.breaker.state).toBe('closed');
    expect(context.breaker.ejectedUntilMs).toBeUndefined();
    context.sendMany('FF');
    expect(context.breaker.state).toBe('closed');
  });
});

describe('Breaker: what ejected it', () => {
  it('keeps the kind of the failure that tripped it, then of a failed trial, and forgets it when it closes', () => {
    const context = setup();
    const { breaker, clock } = context;
    for (const kind of ['server_error', 'connection', 'timeout'] as const) breaker.record(breaker.admit()!, 'failure', kind);
    expect(breaker.state).toBe('ejected');
    expect(breaker.ejectedBy).toBe('timeout');
    expect(breaker.snapshot()).toMatchObject({ state: 'ejected', ejectedBy: 'timeout' });

    clock.nowMs = breaker.ejectedUntilMs!;
    breaker.record(trial(breaker), 'failure', 'server_error');
    expect(breaker.ejectedBy).toBe('server_error');
    clock.nowMs = breaker.ejectedUntilMs!;
    breaker.record(trial(breaker), 'success');
    expect(breaker.ejectedBy).toBeUndefined();
    expect(breaker.snapshot()).not.toHaveProperty('ejectedBy');
  });

  it("takes another replica's kind with its ejection; a record without one keeps what this replica knew of the same state", () => {
    const { breaker } = setup();
    breaker.adopt({ state: 'ejected', sinceMs: 0, reason: '3 consecutive failures', ejectedUntilMs: 10_000, consecutiveEjections: 1, ejectedBy: 'connection' });
    expect(breaker.ejectedBy).toBe('connection');
    breaker.adopt({ state: 'ejected', sinceMs: 0, reason: '3 consecutive failures', ejectedUntilMs: 20_000, consecutiveEjections: 1 });
    expect(breaker.ejectedBy).toBe('connection');
    breaker.adopt({ state: 'closed', sinceMs: 20_000, reason: 'trial request succeeded', consecutiveEjections: 0 });
    expect(breaker.ejectedBy).toBeUndefined();
    breaker.adopt({ state: 'ejected', sinceMs: 30_000, reason: '3 consecutive failures', ejectedUntilMs: 40_000, consecutiveEjections: 1 });
    expect(breaker.ejectedBy).toBeUndefined();
  });
});
