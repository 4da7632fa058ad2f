import { describe, expect, it } from 'vitest';
import {
  bodyHash,
  InMemoryIdempotencyStore,
  type IdempotencyBegin,
  type IdempotencyEntry,
  type IdempotencyStore,
  type IdempotencyStoreOptions,
  type StoredResponse,
} from '../../src/idempotency/idempotency-store.js';
import { RedisIdempotencyStore } from '../../src/state/redis-idempotency-store.js';
import { redisForThisFile } from '../support/redis-server.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { replicaLinks } from './two-replicas.js';

const redis = redisForThisFile();
const links = replicaLinks();

interface StoreUnderTest {
  store: IdempotencyStore;
  /** Resolves once completions and releases made so far have reached the store's state. */
  written(): Promise<void>;
}

const implementations: [string, boolean, (options?: IdempotencyStoreOptions) => Promise<StoreUnderTest>][] = [
  ['memory', true, async (options) => ({ store: new InMemoryIdempotencyStore(options), written: async () => undefined })],
  [
    'redis',
    redis.available,
    async (options) => {
      const store = new RedisIdempotencyStore(await links.open(redis.server().url), options);
      return { store, written: () => store.flush() };
    },
  ],
];

const BODY = '{"model":"chat","messages":[{"role":"user","content":"hi"}]}';
const ANSWER: StoredResponse = { status: 200, headers: { 'x-switchyard-attempts': '1' }, body: '{"id":"chatcmpl-1"}' };
const request = (overrides: { key?: string; body?: string } = {}) => ({
  key: overrides.key ?? 'order-1',
  scope: 'key_a /v1/chat/completions',
  bodyHash: bodyHash(overrides.body ?? BODY),
  nowMs: Date.now(),
});

function entryOf(begun: IdempotencyBegin): IdempotencyEntry {
  if (begun.state !== 'new') throw new Error(`expected a new run, got ${begun.state}`);
  return begun.entry;
}

describe.each(implementations)('the %s idempotency store', (_name, available, open) => {
  it.runIf(available)('runs the first request, replays its answer for the same body, refuses another body', async () => {
    const { store, written } = await open();
    const entry = entryOf(await store.begin(request()));
    store.complete(entry, ANSWER);
    await written();
    expect(await store.begin(request())).toEqual({ state: 'done', stored: ANSWER });
    expect(await store.begin(request({ body: `${BODY} ` }))).toEqual({ state: 'mismatch' });
  });

  it.runIf(available)('tells a resend to come back while the first runs; an abandoned run frees the key', async () => {
    const { store, written } = await open();
    const entry = entryOf(await store.begin(request()));
    expect(await store.begin(request())).toEqual({ state: 'running', retryAfterMs: 1_000 });
    store.abandon(entry);
    await written();
    expect((await store.begin(request())).state).toBe('new');
  });

  it.runIf(available)('takes a run unfinished after its lease as lost, and its late completion is not kept', async () => {
    const { store, written } = await open({ leaseMs: 200 });
    const lost = entryOf(await store.begin(request()));
    let begun: IdempotencyBegin | undefined;
    await eventually(async () => (begun = await store.begin(request())).state === 'new', 5_000, 'the lease to lapse');
    store.complete(lost, ANSWER);
    await written();
    expect(await store.begin(request())).toMatchObject({ state: 'running' });
    store.complete(entryOf(begun!), { ...ANSWER, body: '{"id":"chatcmpl-2"}' });
    await written();
    expect(await store.begin(request())).toEqual({ state: 'done', stored: { ...ANSWER, body: '{"id":"chatcmpl-2"}' } });
  });

  it.runIf(available)('does not keep an answer larger than the size limit: a resend runs again', async () => {
    const { store, written } = await open({ maxStoredChars: 100 });
    store.complete(entryOf(await store.begin(request())), { ...ANSWER, body: 'x'.repeat(101) });
    await written();
    expect((await store.begin(request())).state).toBe('new');
  });
});

describe.runIf(redis.available)('idempotency across two replicas', () => {
  async function twoStores(): Promise<[RedisIdempotencyStore, RedisIdempotencyStore]> {
    const url = redis.server().url;
    return [new RedisIdempotencyStore(await links.open(url)), new RedisIdempotencyStore(await links.open(url))];
  }

  it('in flight on one → running on the other; answered on one → replayed by the other; another body → mismatch', async () => {
    const [a, b] = await twoStores();
    const entry = entryOf(await a.begin(request()));
    expect(await b.begin(request())).toMatchObject({ state: 'running' });
    a.complete(entry, ANSWER);
    await a.flush();
    expect(await b.begin(request())).toEqual({ state: 'done', stored: ANSWER });
    expect(await b.begin(request({ body: '{}' }))).toEqual({ state: 'mismatch' });
  });

  it('the same key begun on both at once: exactly one runs', async () => {
    const [a, b] = await twoStores();
    const begun = await Promise.all([a.begin(request()), b.begin(request()), a.begin(request()), b.begin(request())]);
    expect(begun.map((result) => result.state).sort()).toEqual(['new', 'running', 'running', 'running']);
  });

  it('with Redis down, keys are claimed and replayed locally; once it is back they are shared again', async () => {
    const server = redis.server();
    const [linkA, linkB] = [await links.open(server.url), await links.open(server.url)];
    const [a, b] = [new RedisIdempotencyStore(linkA), new RedisIdempotencyStore(linkB)];
    await server.stop();
    await eventually(() => !linkA.up && !linkB.up, 5_000, 'the links to notice Redis is gone');
    const local = entryOf(await a.begin(request({ key: 'during-outage' })));
    a.complete(local, ANSWER);
    expect(await a.begin(request({ key: 'during-outage' }))).toEqual({ state: 'done', stored: ANSWER });
    await server.start();
    await eventually(() => linkA.up && linkB.up, 10_000, 'the links to resync');
    expect((await a.begin(request({ key: 'after-outage' }))).state).toBe('new');
    expect(await b.begin(request({ key: 'after-outage' }))).toMatchObject({ state: 'running' });
  });
});
