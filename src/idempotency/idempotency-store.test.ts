import { describe, expect, it } from 'vitest';
import { bodyHash, InMemoryIdempotencyStore, isReplayable, type IdempotencyBegin, type IdempotencyEntry, type StoredResponse } from './idempotency-store.js';

const HOUR_MS = 60 * 60 * 1000;
const BODY = '{"model":"chat","messages":[{"role":"user","content":"hi"}]}';
const JSON_RESPONSE: StoredResponse = { status: 200, headers: { 'x-switchyard-attempts': '1' }, body: '{"id":"chatcmpl-1"}' };

function entryOf(begin: IdempotencyBegin): IdempotencyEntry {
  if (begin.state !== 'new') throw new Error(`expected a new run, got ${begin.state}`);
  return begin.entry;
}

describe('InMemoryIdempotencyStore', () => {
  const request = { key: 'idem-1', scope: 'key_a', bodyHash: bodyHash(BODY) };

  it('runs the first request, then replays its response for the same body', async () => {
    const store = new InMemoryIdempotencyStore();
    const entry = entryOf(await store.begin({ ...request, nowMs: 0 }));
    store.complete(entry, JSON_RESPONSE);
    expect(await store.begin({ ...request, nowMs: 1_000 })).toEqual({ state: 'done', stored: JSON_RESPONSE });
  });

  it('replays a stream as the SSE text the caller received', async () => {
    const store = new InMemoryIdempotencyStore();
    const stream: StoredResponse = { status: 200, headers: {}, sse: 'data: {"choices":[]}\n\ndata: [DONE]\n\n' };
    store.complete(entryOf(await store.begin({ ...request, nowMs: 0 })), stream);
    expect(await store.begin({ ...request, nowMs: 1 })).toEqual({ state: 'done', stored: stream });
  });

  it('refuses the same key with another body, running or done', async () => {
    const store = new InMemoryIdempotencyStore();
    const entry = entryOf(await store.begin({ ...request, nowMs: 0 }));
    const other = { ...request, bodyHash: bodyHash(`${BODY} `) };
    expect(await store.begin({ ...other, nowMs: 1 })).toEqual({ state: 'mismatch' });
    store.complete(entry, JSON_RESPONSE);
    expect(await store.begin({ ...other, nowMs: 2 })).toEqual({ state: 'mismatch' });
  });

  it('tells a resend to wait while the first runs, about as long as it has run', async () => {
    const store = new InMemoryIdempotencyStore();
    await store.begin({ ...request, nowMs: 0 });
    expect(await store.begin({ ...request, nowMs: 200 })).toEqual({ state: 'running', retryAfterMs: 1_000 });
    expect(await store.begin({ ...request, nowMs: 4_000 })).toEqual({ state: 'running', retryAfterMs: 4_000 });
    expect(await store.begin({ ...request, nowMs: 60_000 })).toEqual({ state: 'running', retryAfterMs: 10_000 });
  });

  it('keeps keys of different scopes apart', async () => {
    const store = new InMemoryIdempotencyStore();
    store.complete(entryOf(await store.begin({ ...request, nowMs: 0 })), JSON_RESPONSE);
    expect((await store.begin({ ...request, scope: 'key_b', nowMs: 1 })).state).toBe('new');
  });

  it('releases the key when the first run is abandoned', async () => {
    const store = new InMemoryIdempotencyStore();
    const first = entryOf(await store.begin({ ...request, nowMs: 0 }));
    store.abandon(first);
    const second = entryOf(await store.begin({ ...request, nowMs: 1 }));
    // The first run's late calls cannot touch the second's claim.
    store.complete(first, JSON_RESPONSE);
    store.abandon(first);
    expect((await store.begin({ ...request, nowMs: 2 })).state).toBe('running');
    store.complete(second, JSON_RESPONSE);
    expect((await store.begin({ ...request, nowMs: 3 })).state).toBe('done');
  });

  it('forgets a key 24 hours after its first request', async () => {
    const store = new InMemoryIdempotencyStore();
    store.complete(entryOf(await store.begin({ ...request, nowMs: 0 })), JSON_RESPONSE);
    expect((await store.begin({ ...request, nowMs: 24 * HOUR_MS - 1 })).state).toBe('done');
    expect((await store.begin({ ...request, nowMs: 24 * HOUR_MS })).state).toBe('new');
  });

  it('drops expired keys as later requests arrive', async () => {
    const store = new InMemoryIdempotencyStore();
    for (let i = 0; i < 5; i++) store.complete(entryOf(await store.begin({ ...request, key: `old-${i}`, nowMs: i })), JSON_RESPONSE);
    await store.begin({ ...request, key: 'new', nowMs: 24 * HOUR_MS + 2 });
    // old-0…old-2 expired; old-3, old-4 and new remain.
    expect(store.size).toBe(3);
  });

  it('releases a run that never ended once its lease is over', async () => {
    const store = new InMemoryIdempotencyStore({ leaseMs: 60_000 });
    const lost = entryOf(await store.begin({ ...request, nowMs: 0 }));
    expect((await store.begin({ ...request, nowMs: 59_999 })).state).toBe('running');
    const next = entryOf(await store.begin({ ...request, nowMs: 60_000 }));
    store.complete(lost, { ...JSON_RESPONSE, body: 'late' });
    store.complete(next, JSON_RESPONSE);
    expect(await store.begin({ ...request, nowMs: 60_001 })).toEqual({ state: 'done', stored: JSON_RESPONSE });
  });

  it('evicts the oldest completed keys past its bounds, never a running one', async () => {
    const store = new InMemoryIdempotencyStore({ maxEntries: 2 });
    const running = entryOf(await store.begin({ ...request, key: 'running', nowMs: 0 }));
    store.complete(entryOf(await store.begin({ ...request, key: 'done-1', nowMs: 1 })), JSON_RESPONSE);
    store.complete(entryOf(await store.begin({ ...request, key: 'done-2', nowMs: 2 })), JSON_RESPONSE);
    expect(store.size).toBe(2);
    expect((await store.begin({ ...request, key: 'running', nowMs: 3 })).state).toBe('running');
    expect((await store.begin({ ...request, key: 'done-1', nowMs: 3 })).state).toBe('new');
    store.abandon(running);
  });

  it('bounds the characters it stores, and does not keep a response larger than all of them', async () => {
    const store = new InMemoryIdempotencyStore({ maxStoredChars: 100 });
    const sized = (chars: number): StoredResponse => ({ status: 200, headers: {}, body: 'x'.repeat(chars) });
    store.complete(entryOf(await store.begin({ ...request, key: 'a', nowMs: 0 })), sized(60));
    store.complete(entryOf(await store.begin({ ...request, key: 'b', nowMs: 1 })), sized(60));
    expect((await store.begin({ ...request, key: 'a', nowMs: 2 })).state).toBe('new');
    expect((await store.begin({ ...request, key: 'b', nowMs: 2 })).state).toBe('done');
    store.complete(entryOf(await store.begin({ ...request, key: 'huge', nowMs: 3 })), sized(101));
    expect((await store.begin({ ...request, key: 'huge', nowMs: 4 })).state).toBe('new');
  });
});

describe('bodyHash', () => {
  it('is the SHA-256 of the raw bytes', async () => {
    expect(bodyHash('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(bodyHash('{"a":1}')).not.toBe(bodyHash('{"a": 1}'));
    expect(bodyHash(new TextEncoder().encode('abc'))).toBe(bodyHash('abc'));
  });
});

describe('isReplayable', () => {
  it('keeps successes and body-determined rejections, not failures waiting could cure', async () => {
    expect([200, 400, 404, 413, 422].map(isReplayable)).toEqual([true, true, true, true, true]);
    expect([408, 409, 429, 499, 500, 502, 503, 504].map(isReplayable)).toEqual(Array(8).fill(false));
  });
});
