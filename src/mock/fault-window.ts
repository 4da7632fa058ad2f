import type { FaultWindowSpec } from './directives.js';

interface WindowState {
  seen: number;
  firstAtMs: number;
}

/**
 * Decides whether a request's faults apply, from `times` and `flap_down_s`. Requests are grouped
 * by their exact directive source (model string + `x-mock` header), so two tests using different
 * strings never share a counter.
 */
export class FaultWindow {
  private readonly states = new Map<string, WindowState>();

  /** Counts the request against its group; call once per request. */
  admit(groupKey: string, spec: FaultWindowSpec, nowMs: number): boolean {
    if (spec.times === undefined && spec.flapDownMs === undefined) return true;
    let state = this.states.get(groupKey);
    if (!state) {
      state = { seen: 0, firstAtMs: nowMs };
      this.states.set(groupKey, state);
    }
    state.seen += 1;
    const withinTimes = spec.times === undefined || state.seen <= spec.times;
    const withinFlap = spec.flapDownMs === undefined || nowMs - state.firstAtMs < spec.flapDownMs;
    return withinTimes && withinFlap;
  }

  clear(): void {
    this.states.clear();
  }
}
