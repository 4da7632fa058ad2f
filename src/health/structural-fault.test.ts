import { describe, expect, it } from 'vitest';
import type { FailureKind } from '../core/failure-kind.js';
import { LOW_REQUESTS_PER_MINUTE, StructuralFault, type StructuralSettings, type StructuralTransition } from './structural-fault.js';

const SETTINGS: StructuralSettings = { persist_429_s: 900, probe_interval_s: 300 };

function setup(settings: StructuralSettings = SETTINGS) {
  const clock = { nowMs: 0 };
  const transitions: StructuralTransition[] = [];
  const fault = new StructuralFault(settings, () => clock.nowMs, (change) => transitions.push(change));
  /** Sends one request at `atMs` and records its answer. */
  const sendAt = (atMs: number, kind: FailureKind): void => {
    clock.nowMs = atMs;
    fault.requestSent();
    fault.record(kind);
  };
  return { clock, transitions, fault, sendAt };
}

describe('StructuralFault: entry on a named fault', () => {
  const named = [
    ['quota_exhausted', 'quota exhausted'],
    ['not_found', 'model not found'],
    ['credential', 'credential rejected'],
  ] as const;
  for (const [kind, reason] of named) {
    it(`${kind} enters at once and schedules a probe`, () => {
      const { fault, transitions, sendAt } = setup();
      sendAt(7_000, kind);
      expect(fault.state).toBe('structural');
      expect(fault.cause).toBe(kind);
      expect(fault.reason).toBe(reason);
      expect(fault.sinceMs).toBe(7_000);
      expect(fault.nextProbeAtMs).toBe(307_000);
      expect(transitions).toEqual([{ from: 'clear', to: 'structural', cause: kind, reason, atMs: 7_000 }]);
    });
  }

  it('other failures never enter it', () => {
    const { fault, sendAt } = setup();
    const kinds: FailureKind[] = ['server_error', 'timeout', 'connection', 'context_length', 'moderation', 'invalid_request', 'stream_interrupted', 'cancelled'];
    for (const kind of kinds) sendAt(1_000, kind);
    expect(fault.state).toBe('clear');
    expect(fault.nextProbeAtMs).toBeUndefined();
  });

  it('the caller may apply a credential fault seen on another deployment of the connection', () => {
    const { fault, transitions, clock } = setup();
    clock.nowMs = 2_000;
    fault.enter('credential', 'credential rejected on openai-prod/gpt-4.1');
    expect(fault.cause).toBe('credential');
    expect(transitions).toEqual([
      { from: 'clear', to: 'structural', cause: 'credential', reason: 'credential rejected on openai-prod/gpt-4.1', atMs: 2_000 },
    ]);
  });

  it('a second fault while structural keeps the first cause and time', () => {
    const { fault, transitions, sendAt } = setup();
    sendAt(1_000, 'not_found');
    fault.enter('credential');
    expect(fault.cause).toBe('not_found');
    expect(fault.sinceMs).toBe(1_000);
    expect(transitions).toHaveLength(1);
  });
});

describe('StructuralFault: persistent 429', () => {
  it('enters once 429s last persist_429_s at a low request rate', () => {
    const { fault, transitions, sendAt } = setup();
    for (let atMs = 0; atMs < 900_000; atMs += 60_000) sendAt(atMs, 'rate_limit');
    expect(fault.state).toBe('clear'); // the last one was at 840 s
    sendAt(900_000, 'rate_limit');
    expect(fault.state).toBe('structural');
    expect(fault.cause).toBe('persistent_429');
    expect(fault.reason).toBe('429s for 900 s at 1 requests/min');
    expect(fault.nextProbeAtMs).toBe(1_200_000);
    expect(transitions).toEqual([
      { from: 'clear', to: 'structural', cause: 'persistent_429', reason: '429s for 900 s at 1 requests/min', atMs: 900_000 },
    ]);
  });

  it('does not enter while the deployment is busy: that is congestion, which cooling handles', () => {
    const { fault, sendAt } = setup();
    const busyStepMs = 60_000 / LOW_REQUESTS_PER_MINUTE; // exactly the threshold
    for (let atMs = 0; atMs <= 1_200_000; atMs += busyStepMs) sendAt(atMs, 'rate_limit');
    expect(fault.state).toBe('clear');
    // Traffic falls: the run is long since past persist_429_s, so the next quiet 429 decides.
    sendAt(1_290_000, 'rate_limit');
    expect(fault.state).toBe('structural');
    expect(fault.reason).toBe('429s for 1290 s at 1 requests/min');
  });

  it('counts requests when sent, so a burst still in flight is not mistaken for a quiet deployment', () => {
    const { fault, clock, sendAt } = setup();
    sendAt(0, 'rate_limit');
    clock.nowMs = 950_000;
    for (let count = 0; count < LOW_REQUESTS_PER_MINUTE; count++) fault.requestSent();
    fault.record('rate_limit'); // the first answer of the burst
    expect(fault.state).toBe('clear');
  });

  it('a success ends the run of 429s; other failures do not', () => {
    const { fault, sendAt } = setup();
    sendAt(0, 'rate_limit');
    sendAt(500_000, 'ok');
    sendAt(600_000, 'rate_limit');
    sendAt(1_000_000, 'server_error');
    sendAt(1_400_000, 'rate_limit');
    expect(fault.state).toBe('clear'); // 800 s since the run began at 600 s
    sendAt(1_500_000, 'rate_limit');
    expect(fault.state).toBe('structural');
    expect(fault.reason).toBe('429s for 900 s at 1 requests/min');
  });
});

describe('StructuralFault: leaving only by probe', () => {
  it('stays structural through time and live outcomes', () => {
    const { fault, sendAt } = setup();
    sendAt(0, 'quota_exhausted');
    sendAt(10_000_000, 'ok');
    expect(fault.state).toBe('structural');
    expect(fault.cause).toBe('quota_exhausted');
  });

  it('a failed probe keeps it and schedules the next one probe_interval_s later', () => {
    const { fault, clock, transitions, sendAt } = setup();
    sendAt(0, 'not_found');
    clock.nowMs = 301_000;
    fault.postponeProbe();
    expect(fault.state).toBe('structural');
    expect(fault.nextProbeAtMs).toBe(601_000);
    expect(fault.sinceMs).toBe(0);
    expect(transitions).toHaveLength(1);
  });

  it('a successful probe clears it', () => {
    const { fault, clock, transitions, sendAt } = setup();
    sendAt(0, 'credential');
    clock.nowMs = 300_000;
    fault.probeSucceeded();
    expect(fault.state).toBe('clear');
    expect(fault.cause).toBeUndefined();
    expect(fault.reason).toBe('readmitted by a successful active probe (was: credential rejected)');
    expect(fault.sinceMs).toBe(300_000);
    expect(fault.nextProbeAtMs).toBeUndefined();
    expect(transitions.at(-1)).toEqual({ from: 'structural', to: 'clear', cause: 'credential', reason: 'readmitted by a successful active probe (was: credential rejected)', atMs: 300_000 });
  });

  it('after a probe clears a persistent 429, a new run starts from scratch', () => {
    const { fault, clock, sendAt } = setup();
    sendAt(0, 'rate_limit');
    sendAt(900_000, 'rate_limit');
    clock.nowMs = 1_200_000;
    fault.probeSucceeded();
    sendAt(1_300_000, 'rate_limit');
    expect(fault.state).toBe('clear');
    sendAt(2_200_000, 'rate_limit');
    expect(fault.state).toBe('structural');
  });

  it('probe results while clear change nothing', () => {
    const { fault, transitions } = setup();
    fault.probeSucceeded();
    fault.postponeProbe();
    expect(fault.state).toBe('clear');
    expect(fault.nextProbeAtMs).toBeUndefined();
    expect(transitions).toEqual([]);
  });
});

describe('StructuralFault: configure', () => {
  it('keeps the state; a shorter probe interval applies at once, a longer one from the next probe', () => {
    const { fault, clock, sendAt } = setup();
    sendAt(0, 'not_found');
    clock.nowMs = 100_000;
    fault.configure({ ...SETTINGS, probe_interval_s: 60 });
    expect(fault.state).toBe('structural');
    expect(fault.nextProbeAtMs).toBe(160_000);
    fault.configure({ ...SETTINGS, probe_interval_s: 600 });
    expect(fault.nextProbeAtMs).toBe(160_000);
    clock.nowMs = 160_000;
    fault.postponeProbe();
    expect(fault.nextProbeAtMs).toBe(760_000);
  });

  it('a new persist_429_s applies to the running 429s', () => {
    const { fault, sendAt } = setup();
    sendAt(0, 'rate_limit');
    fault.configure({ ...SETTINGS, persist_429_s: 120 });
    sendAt(120_000, 'rate_limit');
    expect(fault.state).toBe('structural');
  });
});

describe('StructuralFault: adopting another replica’s state', () => {
  it('enters and leaves as adopted transitions, with a probe due one interval after it heard', () => {
    const { fault, transitions, clock } = setup();
    clock.nowMs = 5_000;
    fault.adopt({ state: 'structural', cause: 'credential', reason: 'credential rejected', sinceMs: 4_000 });
    expect(fault.snapshot()).toEqual({ state: 'structural', cause: 'credential', reason: 'credential rejected', sinceMs: 4_000 });
    expect(fault.nextProbeAtMs).toBe(5_000 + 300_000);
    expect(fault.adopted).toBe(true);
    fault.adopt({ state: 'clear', cause: 'credential', reason: 'readmitted by a successful active probe', sinceMs: 6_000 });
    expect(fault.state).toBe('clear');
    expect(fault.nextProbeAtMs).toBeUndefined();
    expect(transitions.map((change) => [change.to, change.adopted])).toEqual([
      ['structural', true],
      ['clear', true],
    ]);
  });

  it('postponeProbe moves the next probe one interval on', () => {
    const { fault, sendAt, clock } = setup();
    sendAt(0, 'not_found');
    clock.nowMs = 300_000;
    fault.postponeProbe();
    expect(fault.nextProbeAtMs).toBe(600_000);
  });
});
