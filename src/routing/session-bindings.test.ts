import { describe, expect, it } from 'vitest';
import { LocalSessionBindings } from './session-bindings.js';

function clockedBindings(options: { maxEntries?: number } = {}) {
  const clock = { nowMs: 0 };
  let evictions = 0;
  const bindings = new LocalSessionBindings({ ...options, now: () => clock.nowMs, onEvicted: () => evictions++ });
  return { bindings, clock, evictions: () => evictions };
}

describe('LocalSessionBindings', () => {
  it('answers the bound target until the idle time passes without a renewal; each renewal starts it again', () => {
    const { bindings, clock } = clockedBindings();
    expect(bindings.renew('r:s', 1_000)).toBeUndefined();
    bindings.bind('r:s', 'c/a', 1_000);
    clock.nowMs = 900;
    expect(bindings.renew('r:s', 1_000)).toBe('c/a');
    clock.nowMs = 1_800;
    expect(bindings.renew('r:s', 1_000)).toBe('c/a');
    clock.nowMs = 2_800;
    expect(bindings.renew('r:s', 1_000)).toBeUndefined();
    expect(bindings.renew('r:s', 1_000)).toBeUndefined();
  });

  it('binding again moves the session and starts its idle time again', () => {
    const { bindings, clock } = clockedBindings();
    bindings.bind('r:s', 'c/a', 1_000);
    clock.nowMs = 600;
    bindings.bind('r:s', 'c/b', 1_000);
    clock.nowMs = 1_500;
    expect(bindings.renew('r:s', 1_000)).toBe('c/b');
  });

  it('past its bound drops the least recently used binding, counting only those still within their idle time', () => {
    const { bindings, clock, evictions } = clockedBindings({ maxEntries: 2 });
    bindings.bind('r:one', 'c/a', 1_000);
    bindings.bind('r:two', 'c/a', 1_000);
    // Used again: `two` is now the least recently used.
    expect(bindings.renew('r:one', 1_000)).toBe('c/a');
    bindings.bind('r:three', 'c/b', 1_000);
    expect(evictions()).toBe(1);
    expect(bindings.renew('r:two', 1_000)).toBeUndefined();
    expect(bindings.renew('r:one', 1_000)).toBe('c/a');
    expect(bindings.renew('r:three', 1_000)).toBe('c/b');

    clock.nowMs = 5_000;
    bindings.bind('r:four', 'c/a', 1_000);
    // `one` had lapsed: dropped for room, but not lost to the bound.
    expect(evictions()).toBe(1);
    expect(bindings.renew('r:four', 1_000)).toBe('c/a');
  });
});
