import { describe, expect, it } from 'vitest';
import { RetryBudget, RetryBudgets } from './retry-budget.js';

function clock(startMs = 0) {
  let nowMs = startMs;
  return { now: () => nowMs, advance: (ms: number) => (nowMs += ms) };
}

describe('RetryBudget', () => {
  it('allows a burst of two seconds of the floor, then refuses', () => {
    const time = clock();
    const budget = new RetryBudget({ ratio: 0.1, min_per_second: 5 }, time.now);
    const granted = Array.from({ length: 15 }, () => budget.tryRetry()).filter(Boolean).length;
    expect(granted).toBe(10);
  });

  it('refills at min_per_second', () => {
    const time = clock();
    const budget = new RetryBudget({ ratio: 0, min_per_second: 5 }, time.now);
    while (budget.tryRetry());
    time.advance(400);
    expect(budget.tryRetry()).toBe(true);
    expect(budget.tryRetry()).toBe(true);
    expect(budget.tryRetry()).toBe(false);
  });

  it('earns ratio per success', () => {
    const time = clock();
    const budget = new RetryBudget({ ratio: 0.5, min_per_second: 0 }, time.now);
    while (budget.tryRetry());
    budget.recordSuccess();
    expect(budget.tryRetry()).toBe(false);
    budget.recordSuccess();
    expect(budget.tryRetry()).toBe(true);
  });

  it('keeps its tokens per route across reconfiguration', () => {
    const time = clock();
    const budgets = new RetryBudgets(time.now);
    const first = budgets.for('route-a', { ratio: 0.1, min_per_second: 1 });
    expect(first.tryRetry()).toBe(true);
    expect(first.tryRetry()).toBe(true);
    expect(first.tryRetry()).toBe(false);
    expect(budgets.for('route-a', { ratio: 0.1, min_per_second: 1 })).toBe(first);
    expect(budgets.for('route-b', { ratio: 0.1, min_per_second: 1 }).tryRetry()).toBe(true);
  });
});

describe('RetryBudget: the fleet’s bucket', () => {
  it('asks the shared bucket while it answers, and the local one when it cannot', async () => {
    let answer: boolean | undefined = false;
    let reachable = true;
    const credited: number[] = [];
    const budgets = new RetryBudgets(Date.now, undefined, {
      take: () => (reachable ? Promise.resolve(answer) : undefined),
      credit: (_route, bucket) => credited.push(bucket.creditPerSuccess),
    });
    const budget = budgets.for('r', { ratio: 0.5, min_per_second: 0 });
    expect(await budget.tryRetry()).toBe(false);
    answer = undefined;
    expect(await budget.tryRetry()).toBe(true);
    reachable = false;
    expect(budget.tryRetry()).toBe(true);
    expect(budget.tryRetry()).toBe(false);
    budget.recordSuccess();
    expect(credited).toEqual([0.5]);
  });
});
