import { describe, expect, it } from 'vitest';
import { CachedAccessToken, type TokenClock } from './cached-access-token.js';
import type { FetchedToken } from './google-token-sources.js';

/** A clock the test moves: `advance` runs the tasks that fall due, in order. */
function manualClock() {
  let nowMs = 1_000_000;
  const tasks: { atMs: number; task: () => void; cancelled: boolean }[] = [];
  const clock: TokenClock & { advance(ms: number): void; pending(): number } = {
    now: () => nowMs,
    after(delayMs, task) {
      const entry = { atMs: nowMs + delayMs, task, cancelled: false };
      tasks.push(entry);
      return () => void (entry.cancelled = true);
    },
    advance(ms) {
      nowMs += ms;
      for (const entry of tasks.filter((candidate) => !candidate.cancelled && candidate.atMs <= nowMs)) {
        entry.cancelled = true;
        entry.task();
      }
    },
    pending: () => tasks.filter((entry) => !entry.cancelled).length,
  };
  return clock;
}

/** A token endpoint the test answers by hand: each fetch waits until the test says. */
function scriptedFetches() {
  const waiting: { resolve(token: FetchedToken): void; reject(error: Error): void }[] = [];
  return {
    fetch: () => new Promise<FetchedToken>((resolve, reject) => waiting.push({ resolve, reject })),
    get count() {
      return waiting.length;
    },
    answer(index: number, token: string, lifetimeMs = 3_600_000) {
      waiting[index]?.resolve({ token, lifetimeMs });
    },
    refuse(index: number) {
      waiting[index]?.reject(new Error('refused'));
    },
  };
}

/** Lets promise callbacks queued by a settled fetch run. */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('CachedAccessToken', () => {
  it('makes the first requests wait on one fetch, and later ones not at all', async () => {
    const clock = manualClock();
    const fetches = scriptedFetches();
    const cache = new CachedAccessToken(fetches.fetch, clock);
    const first = cache.get();
    const second = cache.get();
    expect(fetches.count).toBe(1);
    fetches.answer(0, 'token-1');
    expect(await Promise.all([first, second])).toEqual(['token-1', 'token-1']);
    expect(await cache.get()).toBe('token-1');
    expect(fetches.count).toBe(1);
    cache.close();
  });

  it('renews in the background before expiry while requests keep the token in hand', async () => {
    const clock = manualClock();
    const fetches = scriptedFetches();
    const cache = new CachedAccessToken(fetches.fetch, clock);
    const first = cache.get();
    fetches.answer(0, 'token-1', 3_600_000);
    await first;
    clock.advance(3_600_000 - 300_000 - 1);
    expect(fetches.count).toBe(1);
    clock.advance(1);
    // The renewal has started; a request meanwhile is not held up by it.
    expect(fetches.count).toBe(2);
    expect(await cache.get()).toBe('token-1');
    fetches.answer(1, 'token-2');
    await flush();
    expect(await cache.get()).toBe('token-2');
    cache.close();
  });

  it('renews a short-lived token at half its life', async () => {
    const clock = manualClock();
    const fetches = scriptedFetches();
    const cache = new CachedAccessToken(fetches.fetch, clock);
    const first = cache.get();
    fetches.answer(0, 'token-1', 60_000);
    await first;
    clock.advance(29_999);
    expect(fetches.count).toBe(1);
    clock.advance(1);
    expect(fetches.count).toBe(2);
    cache.close();
  });

  it('keeps the token in hand when a renewal fails, tries again, and once it has expired a request hears the failure', async () => {
    const clock = manualClock();
    const fetches = scriptedFetches();
    const cache = new CachedAccessToken(fetches.fetch, clock);
    const first = cache.get();
    fetches.answer(0, 'token-1', 600_000);
    await first;
    clock.advance(300_000);
    fetches.refuse(1);
    await flush();
    expect(await cache.get()).toBe('token-1');
    clock.advance(15_000);
    expect(fetches.count).toBe(3);
    fetches.refuse(2);
    await flush();
    // Past its usable life (its expiry less the skew), no token is handed out: the request waits on a fetch.
    clock.advance(600_000);
    const late = cache.get();
    expect(fetches.count).toBeGreaterThanOrEqual(4);
    fetches.refuse(fetches.count - 1);
    await expect(late).rejects.toThrow('refused');
    cache.close();
  });

  it('stops renewing once closed', async () => {
    const clock = manualClock();
    const fetches = scriptedFetches();
    const cache = new CachedAccessToken(fetches.fetch, clock);
    const first = cache.get();
    fetches.answer(0, 'token-1');
    await first;
    expect(clock.pending()).toBe(1);
    cache.close();
    expect(clock.pending()).toBe(0);
    clock.advance(3_600_000);
    expect(fetches.count).toBe(1);
  });
});
