import type { RedisCommands } from './redis-target.js';

/**
 * The Lua scripts behind shared health: every change to a shared record is decided inside Redis
 * in one step (and published from the same step, so every replica hears changes in the order
 * they were made). Times come from Redis (`TIME`), the clock every replica agrees on.
 */
const NOW_MS = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * A breaker transition made by one replica. `trip` (→ ejected) wins over a closed record, or
 * over the half-open record of the trial this replica held (same generation); a second trip of
 * the same episode loses and adopts the winner, so the doubling happens once per episode.
 * `close` (the trial succeeded) wins only over that half-open record. `readmit` (a recovery probe
 * succeeded) wins over any ejected or half-open record, whoever holds its trial: the probe's
 * success is news to the whole fleet. Each frees the trial lease.
 * A trip keeps the kind of the failure that ejected it (none when empty); a close forgets it.
 * KEYS: record, trial lease. ARGV: op, expected generation, reason, eject_base_s, eject_max_s, ttl_s, channel, deployment, ejected by.
 */
const BREAKER_TRANSITION = `${NOW_MS}
local raw = redis.call('GET', KEYS[1])
local rec
if raw then rec = cjson.decode(raw) else rec = { gen = 0, state = 'closed', sinceMs = now, reason = 'initial state', consecutiveEjections = 0 } end
local ownTrial = rec.state == 'half_open' and rec.gen == tonumber(ARGV[2])
local wins = ownTrial or (ARGV[1] == 'trip' and rec.state == 'closed') or (ARGV[1] == 'readmit' and rec.state ~= 'closed')
if not wins then return { 0, cjson.encode(rec) } end
if ARGV[1] == 'trip' then
  rec.consecutiveEjections = rec.consecutiveEjections + 1
  local ejectionS = math.min(tonumber(ARGV[4]) * 2 ^ (rec.consecutiveEjections - 1), tonumber(ARGV[5]))
  rec.ejectedUntilMs = now + ejectionS * 1000
  rec.state = 'ejected'
  if ARGV[9] ~= '' then rec.ejectedBy = ARGV[9] else rec.ejectedBy = nil end
else
  rec.consecutiveEjections = 0
  rec.ejectedUntilMs = nil
  rec.ejectedBy = nil
  rec.state = 'closed'
end
rec.gen = rec.gen + 1
rec.sinceMs = now
rec.reason = ARGV[3]
local encoded = cjson.encode(rec)
redis.call('SET', KEYS[1], encoded, 'EX', ARGV[6])
redis.call('DEL', KEYS[2])
redis.call('PUBLISH', ARGV[7], cjson.encode({ kind = 'breaker', key = ARGV[8], record = rec }))
return { 1, encoded }
`;

/**
 * Claims the half-open trial: granted when the ejection time is up and no live lease names
 * another replica (a lease expires if its holder dies). The first claim turns the record half-open.
 * A closed record (or none) grants it too: the caller's breaker then decides alone. A refusal
 * says how long the other replica's lease still runs (0: no lease, the ejection is not over).
 * KEYS: record, trial lease. ARGV: replica id, lease_ms, ttl_s, channel, deployment.
 */
const CLAIM_TRIAL = `${NOW_MS}
local raw = redis.call('GET', KEYS[1])
if not raw then return { 1, '', 0 } end
local rec = cjson.decode(raw)
if rec.state == 'closed' then return { 1, raw, 0 } end
if rec.state == 'ejected' and now < rec.ejectedUntilMs then return { 0, raw, 0 } end
if not redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return { 0, raw, math.max(0, redis.call('PTTL', KEYS[2])) } end
if rec.state == 'ejected' then
  rec.state = 'half_open'
  rec.sinceMs = now
  rec.reason = 'ejection time is up'
  rec.gen = rec.gen + 1
  raw = cjson.encode(rec)
  redis.call('SET', KEYS[1], raw, 'EX', ARGV[3])
  redis.call('PUBLISH', ARGV[4], cjson.encode({ kind = 'breaker', key = ARGV[5], record = rec }))
end
return { 1, raw, 0 }
`;

/**
 * Frees a trial lease this replica holds (never another's) and tells the fleet it is free.
 * KEYS: lease. ARGV: replica id, channel, deployment.
 */
const RELEASE_TRIAL = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[2], cjson.encode({ kind = 'trial_free', key = ARGV[3] }))
return 1
`;

/**
 * Enters or leaves a structural fault: wins unless the record is already in that state.
 * KEYS: record. ARGV: op (enter | clear), cause, reason, ttl_s, channel, deployment.
 */
const STRUCTURAL_TRANSITION = `${NOW_MS}
local raw = redis.call('GET', KEYS[1])
local rec
if raw then rec = cjson.decode(raw) else rec = { gen = 0, state = 'clear', reason = 'initial state', sinceMs = now } end
if (ARGV[1] == 'enter') == (rec.state == 'structural') then return { 0, cjson.encode(rec) } end
rec.gen = rec.gen + 1
if ARGV[1] == 'enter' then rec.state = 'structural' else rec.state = 'clear' end
rec.cause = ARGV[2]
rec.reason = ARGV[3]
rec.sinceMs = now
local encoded = cjson.encode(rec)
redis.call('SET', KEYS[1], encoded, 'EX', ARGV[4])
redis.call('PUBLISH', ARGV[5], cjson.encode({ kind = 'structural', key = ARGV[6], record = rec }))
return { 1, encoded }
`;

/**
 * After an outage: a record this replica changed meanwhile replaces the shared one (a newer generation).
 * KEYS: record. ARGV: record json (no generation), ttl_s, channel, message kind, deployment.
 */
const PUT_RECORD = `local old = redis.call('GET', KEYS[1])
local gen = 0
if old then gen = cjson.decode(old).gen end
local rec = cjson.decode(ARGV[1])
rec.gen = gen + 1
local encoded = cjson.encode(rec)
redis.call('SET', KEYS[1], encoded, 'EX', ARGV[2])
redis.call('PUBLISH', ARGV[3], cjson.encode({ kind = ARGV[4], key = ARGV[5], record = rec }))
return encoded
`;

/**
 * Cooling: the longer of the running one and this one, kept with its length and cause.
 * KEYS: cooling. ARGV: cooling_ms, channel, deployment, replica id, the cooling as JSON ({coolingMs, cause}).
 */
const COOL = `if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[5], 'PX', ARGV[1]) end
redis.call('PUBLISH', ARGV[2], cjson.encode({ kind = 'cooling', key = ARGV[3], coolingMs = tonumber(ARGV[1]), cause = cjson.decode(ARGV[5]).cause, from = ARGV[4] }))
return 0
`;

/**
 * A route's retry bucket for the fleet: refilled by Redis time, then `take` spends a token (1:
 * granted) or `credit` adds a batch of successes' worth. KEYS: bucket. ARGV: op, capacity, refill_per_s, credit, ttl_s.
 */
const RETRY_BUCKET = `${NOW_MS}
local capacity = tonumber(ARGV[2])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'atMs')
local tokens = tonumber(state[1]) or capacity
local at = tonumber(state[2]) or now
if now > at then tokens = math.min(capacity, tokens + (now - at) / 1000 * tonumber(ARGV[3])) end
local granted = 0
if ARGV[1] == 'take' then
  if tokens >= 1 then
    tokens = tokens - 1
    granted = 1
  end
else
  tokens = math.min(capacity, tokens + tonumber(ARGV[4]))
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'atMs', tostring(now))
redis.call('EXPIRE', KEYS[1], ARGV[5])
return granted
`;

/**
 * Adds a replica's answers since its last flush to the route's per-second counts and returns the
 * fleet's totals over the last 60 s (older seconds are dropped). KEYS: counts. ARGV: served, by fallback, ttl_s.
 */
const FALLBACK_COUNTS = `local second = tonumber(redis.call('TIME')[1])
if tonumber(ARGV[1]) > 0 then redis.call('HINCRBY', KEYS[1], second .. ':s', ARGV[1]) end
if tonumber(ARGV[2]) > 0 then redis.call('HINCRBY', KEYS[1], second .. ':f', ARGV[2]) end
redis.call('EXPIRE', KEYS[1], ARGV[3])
local fields = redis.call('HGETALL', KEYS[1])
local served, byFallback = 0, 0
for i = 1, #fields, 2 do
  local at = tonumber(string.match(fields[i], '^(%d+):'))
  if at <= second - 60 then redis.call('HDEL', KEYS[1], fields[i])
  elseif string.sub(fields[i], -1) == 's' then served = served + tonumber(fields[i + 1])
  else byFallback = byFallback + tonumber(fields[i + 1]) end
end
return { served, byFallback }
`;

type Arg = string | number;

/** The scripts as commands on the link's connection (EVALSHA, EVAL when Redis does not have it yet). */
export interface HealthScripts {
  breakerTransition(...args: Arg[]): Promise<[number, string]>;
  claimTrial(...args: Arg[]): Promise<[number, string, number]>;
  releaseTrial(...args: Arg[]): Promise<number>;
  structuralTransition(...args: Arg[]): Promise<[number, string]>;
  putRecord(...args: Arg[]): Promise<string>;
  cool(...args: Arg[]): Promise<number>;
  retryBucket(...args: Arg[]): Promise<number>;
  fallbackCounts(...args: Arg[]): Promise<[number, number]>;
}

const SCRIPTS: Record<keyof HealthScripts, { numberOfKeys: number; lua: string }> = {
  breakerTransition: { numberOfKeys: 2, lua: BREAKER_TRANSITION },
  claimTrial: { numberOfKeys: 2, lua: CLAIM_TRIAL },
  releaseTrial: { numberOfKeys: 1, lua: RELEASE_TRIAL },
  structuralTransition: { numberOfKeys: 1, lua: STRUCTURAL_TRANSITION },
  putRecord: { numberOfKeys: 1, lua: PUT_RECORD },
  cool: { numberOfKeys: 1, lua: COOL },
  retryBucket: { numberOfKeys: 1, lua: RETRY_BUCKET },
  fallbackCounts: { numberOfKeys: 1, lua: FALLBACK_COUNTS },
};

export function healthScripts(redis: RedisCommands): HealthScripts {
  for (const [name, script] of Object.entries(SCRIPTS)) {
    if (!(name in redis)) redis.defineCommand(name, script);
  }
  return redis as unknown as HealthScripts;
}
