import { describe, expect, it } from 'vitest';
import { Cancellation } from './cancellation.js';
import { sleep } from '../engine/sleep.js';

describe('Cancellation', () => {
  it('aborts once, keeping the first reason, and tells each listener in order', () => {
    const cancellation = new Cancellation();
    const heard: string[] = [];
    cancellation.onAbort((reason) => heard.push(`a:${String(reason)}`));
    cancellation.onAbort((reason) => heard.push(`b:${String(reason)}`));
    expect(cancellation.aborted).toBe(false);
    cancellation.abort('first');
    cancellation.abort('second');
    expect(cancellation.aborted).toBe(true);
    expect(cancellation.reason).toBe('first');
    expect(heard).toEqual(['a:first', 'b:first']);
  });

  it('does not call a listener that stopped listening, even from inside another listener', () => {
    const cancellation = new Cancellation();
    const heard: string[] = [];
    const stopB = cancellation.onAbort(() => heard.push('b'));
    const stopA = cancellation.onAbort(() => heard.push('a'));
    stopA();
    cancellation.onAbort(() => {
      heard.push('c');
      stopB();
    });
    cancellation.abort(new Error('gone'));
    expect(heard).toEqual(['b', 'c']);
  });

  it('chains: an attempt that follows its caller aborts with the caller', () => {
    const caller = new Cancellation();
    const attempt = new Cancellation();
    caller.onAbort((reason) => attempt.abort(reason));
    const reason = new Error('caller left');
    caller.abort(reason);
    expect(attempt.reason).toBe(reason);
  });
});

describe('sleep', () => {
  it('resolves true after the wait, false at once when cancelled during it or before', async () => {
    expect(await sleep(5, new Cancellation())).toBe(true);

    const cancellation = new Cancellation();
    const startedAt = Date.now();
    const waiting = sleep(10_000, cancellation);
    setTimeout(() => cancellation.abort('stop'), 10);
    expect(await waiting).toBe(false);
    expect(Date.now() - startedAt).toBeLessThan(5_000);

    expect(await sleep(10_000, cancellation)).toBe(false);
  });
});
