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

/** Granted ('') when free or already this run's; otherwise answers the run that holds it. */
const HOLD = `
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return holder end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return ''`;

/** Deletes the hold only while it is still this run's. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * Run leases in Redis: one key per scheduled job, holding the replica id that runs it, and one per
 * running drill or route canary, holding the run's id (so another replica's 409 can name it).
 * While Redis cannot be reached every replica runs its own schedule, and may run a drill or a
 * canary asked of it — a drill run twice costs a few requests; one never run (or refused for want
 * of Redis) hides a rotten fallback.
 */
export class RedisRunLeases implements RunLeases {
  readonly #link: RedisLink;
  readonly #claim: RedisScript;
  readonly #renew: RedisScript;
  readonly #hold: RedisScript;
  readonly #release: RedisScript;

  constructor(link: RedisLink) {
    this.#link = link;
    this.#claim = redisScript(link, 'run_lease_claim', 1, CLAIM);
    this.#renew = redisScript(link, 'run_lease_renew', 1, RENEW);
    this.#hold = redisScript(link, 'run_hold', 1, HOLD);
    this.#release = redisScript(link, 'run_release', 1, RELEASE);
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

  async hold(name: string, runId: string, forMs: number): Promise<string | undefined> {
    if (!this.#link.up) return undefined;
    try {
      const holder = String(await this.#hold([this.#link.key(`run:${name}`)], [runId, Math.max(1, Math.round(forMs))]));
      return holder === '' ? undefined : holder;
    } catch {
      return undefined;
    }
  }

  async release(name: string, runId: string): Promise<void> {
    if (!this.#link.up) return;
    await this.#release([this.#link.key(`run:${name}`)], [runId]).catch(() => undefined);
  }
}
