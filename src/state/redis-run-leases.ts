import type { RunLeases } from '../schedules/run-leases.js';
import type { RedisLink } from './redis-link.js';
import { redisScript, type RedisScript } from './redis-script.js';

/** Granted when free or already ours; the holder's own next run keeps the lease it has. */
const CLAIM = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
return 0`;

/** Extends the lease only while it is still ours. */
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

/**
 * Run leases in Redis: one key per job, holding the replica id that runs it. While Redis cannot
 * be reached every replica runs its own schedule — a drill run twice costs a few requests; one
 * never run hides a rotten fallback.
 */
export class RedisRunLeases implements RunLeases {
  readonly #link: RedisLink;
  readonly #claim: RedisScript;
  readonly #renew: RedisScript;

  constructor(link: RedisLink) {
    this.#link = link;
    this.#claim = redisScript(link, 'run_lease_claim', 1, CLAIM);
    this.#renew = redisScript(link, 'run_lease_renew', 1, RENEW);
  }

  async claim(name: string, forMs: number): Promise<boolean> {
    if (!this.#link.up) return true;
    try {
      return (await this.#claim([this.#link.key(`schedule:${name}`)], [this.#link.replicaId, Math.max(1, Math.round(forMs))])) === 1;
    } catch {
      return true;
    }
  }

  async renew(name: string, forMs: number): Promise<void> {
    if (!this.#link.up) return;
    await this.#renew([this.#link.key(`schedule:${name}`)], [this.#link.replicaId, Math.max(1, Math.round(forMs))]).catch(() => undefined);
  }
}
