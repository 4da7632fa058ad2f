import type { KeyCache } from '../keys/key-cache.js';
import type { RedisLink } from './redis-link.js';

/** Named when only revocations travelled on it; replicas of an earlier version still listen here. */
const CHANNEL = 'revocations';

/**
 * Changes to keys across replicas (a revocation, a rotation, a changed budget or route): a key
 * changed here is forgotten by every replica's key cache through one pub/sub message, so its next
 * request on any replica reads the key from the store. A message sent or due while Redis is down
 * is lost; the key cache's periodic refresh makes those good, and every known key is re-read at
 * once when the link comes back.
 */
export class RedisKeyChanges {
  readonly #link: RedisLink;
  readonly #cache: KeyCache;

  constructor(link: RedisLink, cache: KeyCache) {
    this.#link = link;
    this.#cache = cache;
    link.subscribe(CHANNEL, (id) => cache.forget(id));
    // In the background: a resync must not wait on the store, and a store failure keeps the cached keys.
    link.onResync(async () => void cache.refresh());
  }

  /** Forgets the key here at once and tells every other replica to. */
  forget(id: string): void {
    this.#cache.forget(id);
    this.#link.publish(CHANNEL, id);
  }
}
