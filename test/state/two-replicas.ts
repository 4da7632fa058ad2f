/**
 * Replicas for the shared-state suites: each a `RedisLink` of its own to the file's Redis, under
 * one key prefix per test so tests never see each other's keys. Every link made is closed after
 * the test.
 */
import { afterEach } from 'vitest';
import { RedisLink } from '../../src/state/redis-link.js';
import type { RedisTarget } from '../../src/state/redis-target.js';

const LINK_READY_MS = 5_000;
let prefixes = 0;

/** `open` takes a Redis's URL, or any target (a cluster's nodes). */
export function replicaLinks(): { open(target: string | RedisTarget, keyPrefix?: string): Promise<RedisLink>; prefix(): string } {
  const links: RedisLink[] = [];
  let prefix = `test-${process.pid}-${++prefixes}:`;
  afterEach(async () => {
    await Promise.all(links.splice(0).map((link) => link.close()));
    prefix = `test-${process.pid}-${++prefixes}:`;
  });
  return {
    async open(target, keyPrefix = prefix) {
      const link = new RedisLink({ ...(typeof target === 'string' ? { url: target } : target), keyPrefix });
      links.push(link);
      if (!(await link.ready(LINK_READY_MS))) throw new Error(`Redis at ${JSON.stringify(target)} did not answer`);
      return link;
    },
    prefix: () => prefix,
  };
}
