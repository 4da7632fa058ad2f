/**
 * The Lua of the shared admission gate. Per virtual key, four keys (one hash tag, so a cluster
 * keeps them on one node): `rate` (hash: the request and token buckets, levels in
 * token-milliseconds and the Redis time they were taken at), `budget` (hash: the period it counts,
 * the spend in it, what open reservations hold), `open` (sorted set: reservation id scored by the
 * Redis time its lease lapses) and `holds` (hash: reservation id → micro-dollars held). The fleet's
 * clock is Redis's own (`TIME`), so replicas whose clocks disagree still refill alike.
 *
 * Numbers travel as decimal strings: Lua's numbers are doubles, exact for every integer a level or
 * an amount reaches, and `%.0f` writes them back without an exponent.
 */

const PRELUDE = `
local WINDOW_MS = 60000
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local function int(x) return string.format('%.0f', x) end
local function refilled(level, at, limit)
  if level == nil then return limit * WINDOW_MS end
  return math.min(limit * WINDOW_MS, level + math.max(0, now - at) * limit)
end
-- A rate hash lives until its buckets are full again: a full bucket and no bucket are the same.
local function keepRateUntilFull(key, level, limit)
  local fullInMs = math.ceil((limit * WINDOW_MS - level) / limit) + 1000
  redis.call('PEXPIRE', key, int(math.max(redis.call('PTTL', key), fullInMs)))
end
-- Reservations whose lease lapsed (their replica died holding them) stop holding budget.
local function sweptReserved(budgetKey, openKey, holdsKey, reserved)
  local lapsed = redis.call('ZRANGEBYSCORE', openKey, '-inf', int(now))
  if #lapsed == 0 then return reserved end
  for _, id in ipairs(lapsed) do
    reserved = reserved - (tonumber(redis.call('HGET', holdsKey, id)) or 0)
    redis.call('HDEL', holdsKey, id)
  end
  redis.call('ZREMRANGEBYSCORE', openKey, '-inf', int(now))
  reserved = math.max(0, reserved)
  redis.call('HSET', budgetKey, 'reserved', int(reserved))
  return reserved
end
`;

/**
 * KEYS: rate, budget, open, holds. ARGV: rpm (0: none), tpm (0: none), estimated tokens, budget
 * micros (-1: no budget), period start ms, maximum cost micros, the ledger's spend (-1: not read),
 * reservation id, lease ms, budget keys' idle TTL ms, minimum cost micros (what is left is
 * reserved when the maximum does not fit but this does; equal to the maximum: all or nothing).
 *
 * Replies `{'seed'}`, changing nothing, when Redis holds no spend for the key's period and no
 * ledger figure came with the call. Otherwise `{verdict, detail, now, requests level, tokens level,
 * spent, reserved}` ('' for what does not apply): verdict `ok` (detail: micros reserved), `rpm` /
 * `tpm` (detail: the wait in ms; nothing charged) or `budget` (detail: micros available; the
 * request still counts against rpm, no tokens are charged).
 */
export const ADMIT_LUA = `${PRELUDE}
local rpm, tpm, estimated = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local budget, period, maxCost = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local seed, id, leaseMs, budgetTtlMs = tonumber(ARGV[7]), ARGV[8], tonumber(ARGV[9]), tonumber(ARGV[10])
local minCost = tonumber(ARGV[11])

local spent, reserved = '', ''
if budget >= 0 then
  local state = redis.call('HMGET', KEYS[2], 'period', 'spent', 'reserved')
  local heldPeriod = tonumber(state[1])
  if heldPeriod == nil or period > heldPeriod then
    -- A new period starts from the ledger's sum for it; the old period's reservations lapse with it.
    if seed < 0 then return {'seed'} end
    redis.call('DEL', KEYS[3], KEYS[4])
    spent, reserved = math.max(0, seed), 0
    redis.call('HSET', KEYS[2], 'period', int(period), 'spent', int(spent), 'reserved', 0)
  else
    spent = tonumber(state[2])
    reserved = sweptReserved(KEYS[2], KEYS[3], KEYS[4], tonumber(state[3]))
  end
  redis.call('PEXPIRE', KEYS[2], budgetTtlMs)
end

local rate = redis.call('HMGET', KEYS[1], 'requests', 'requests_at', 'tokens', 'tokens_at')
local requests, tokens
if rpm > 0 then requests = refilled(tonumber(rate[1]), tonumber(rate[2]), rpm) end
if tpm > 0 then tokens = refilled(tonumber(rate[3]), tonumber(rate[4]), tpm) end
local function waitMs(level, needed, limit)
  local missing = needed * WINDOW_MS - level
  if missing <= 0 then return 0 end
  return math.ceil(missing / limit)
end
local function levels(verdict, detail)
  local function shown(x) if x == '' then return '' end return int(x) end
  return {verdict, int(detail), int(now), requests and int(requests) or '', tokens and int(tokens) or '', shown(spent), shown(reserved)}
end
local requestsWait = requests and waitMs(requests, 1, rpm) or 0
-- A request larger than the whole limit waits for a full bucket, then takes it into debt.
local tokensWait = tokens and waitMs(tokens, math.min(estimated, tpm), tpm) or 0
if requestsWait > 0 or tokensWait > 0 then
  if tokensWait > requestsWait then return levels('tpm', tokensWait) end
  return levels('rpm', requestsWait)
end

local admitted, hold = true, 0
if budget >= 0 then
  local available = budget - spent - reserved
  -- A spent budget refuses even a request of unknown price (maximum cost 0).
  if available <= 0 or minCost > available then admitted = false else hold = math.min(maxCost, available) end
end
if requests then
  requests = requests - WINDOW_MS
  redis.call('HSET', KEYS[1], 'requests', int(requests), 'requests_at', int(now))
  keepRateUntilFull(KEYS[1], requests, rpm)
end
if not admitted then return levels('budget', math.max(0, budget - spent - reserved)) end
if tokens then
  tokens = tokens - estimated * WINDOW_MS
  redis.call('HSET', KEYS[1], 'tokens', int(tokens), 'tokens_at', int(now))
  keepRateUntilFull(KEYS[1], tokens, tpm)
end
if budget >= 0 then
  redis.call('ZADD', KEYS[3], int(now + leaseMs), id)
  redis.call('HSET', KEYS[4], id, int(hold))
  reserved = reserved + hold
  redis.call('HSET', KEYS[2], 'reserved', int(reserved))
  redis.call('PEXPIRE', KEYS[3], budgetTtlMs)
  redis.call('PEXPIRE', KEYS[4], budgetTtlMs)
end
return levels('ok', hold)
`;

/**
 * KEYS: rate, budget, open, holds. ARGV: budget keys' idle TTL ms, then one group of five per
 * settlement of this key: tpm (0: none), tokens used beyond the estimate (negative: a refund),
 * reservation id ('' none), period start ms, real cost micros. Replies how many reservations it
 * settled. A reservation counts once: only one still open is settled, so sending the same
 * settlement again (after a reply was lost) changes nothing.
 */
export const SETTLE_LUA = `${PRELUDE}
local budgetTtlMs = tonumber(ARGV[1])
local settled = 0
for group = 2, #ARGV, 5 do
  local tpm, extraTokens, id = tonumber(ARGV[group]), tonumber(ARGV[group + 1]), ARGV[group + 2]
  local period, cost = tonumber(ARGV[group + 3]), tonumber(ARGV[group + 4])
  if tpm > 0 and extraTokens ~= 0 then
    local rate = redis.call('HMGET', KEYS[1], 'tokens', 'tokens_at')
    -- A refund cannot fill the bucket past its capacity.
    local tokens = math.min(tpm * WINDOW_MS, refilled(tonumber(rate[1]), tonumber(rate[2]), tpm) - extraTokens * WINDOW_MS)
    redis.call('HSET', KEYS[1], 'tokens', int(tokens), 'tokens_at', int(math.max(now, tonumber(rate[2]) or now)))
    keepRateUntilFull(KEYS[1], tokens, tpm)
  end
  local held = id ~= '' and tonumber(redis.call('HGET', KEYS[4], id)) or nil
  if held ~= nil then
    redis.call('ZREM', KEYS[3], id)
    redis.call('HDEL', KEYS[4], id)
    -- Reserved in a period that has ended since: its cost counts toward that one, not this one.
    if tonumber(redis.call('HGET', KEYS[2], 'period')) == period then
      redis.call('HINCRBY', KEYS[2], 'reserved', int(-held))
      redis.call('HINCRBY', KEYS[2], 'spent', int(math.max(0, cost)))
      settled = settled + 1
    end
  end
end
if settled > 0 then redis.call('PEXPIRE', KEYS[2], budgetTtlMs) end
return settled
`;

/**
 * KEYS: budget, the merge's marker. ARGV: period start ms, micros spent locally, marker TTL ms.
 * Adds spend counted while Redis was out of reach, once per merge id whatever the retries. Redis
 * holding no spend for that period (it restarted empty, or the period moved on) adds nothing: the
 * next admission seeds the key from the ledger, which has that spend already.
 */
export const MERGE_LUA = `
local period, cost, markerTtlMs = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if not redis.call('SET', KEYS[2], '1', 'NX', 'PX', markerTtlMs) then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'period')) ~= period then return 0 end
redis.call('HINCRBY', KEYS[1], 'spent', string.format('%.0f', cost))
return 1
`;

/**
 * KEYS: rate, the merge's marker. ARGV: rpm, marker TTL ms, then how long ago (ms, oldest first)
 * each request counted locally while Redis was out of reach was admitted. Charges them to the
 * key's request bucket as if each had been charged when it was admitted (one later than the
 * bucket's last charge counts from then), once per merge id whatever the retries. A bucket is
 * never taken below empty: past a full minute's worth the outage's overshoot is not carried over,
 * and a request older than a minute has no effect (its minute has refilled the bucket).
 */
export const RATE_MERGE_LUA = `${PRELUDE}
local rpm, markerTtlMs = tonumber(ARGV[1]), tonumber(ARGV[2])
if not redis.call('SET', KEYS[2], '1', 'NX', 'PX', markerTtlMs) then return 0 end
local rate = redis.call('HMGET', KEYS[1], 'requests', 'requests_at')
local level, at = tonumber(rate[1]), tonumber(rate[2])
if level == nil or at == nil then level, at = rpm * WINDOW_MS, 0 end
for i = 3, #ARGV do
  local admittedAt = math.max(at, now - tonumber(ARGV[i]))
  level = math.max(0, math.min(rpm * WINDOW_MS, level + (admittedAt - at) * rpm) - WINDOW_MS)
  at = admittedAt
end
level = refilled(level, at, rpm)
redis.call('HSET', KEYS[1], 'requests', int(level), 'requests_at', int(now))
keepRateUntilFull(KEYS[1], level, rpm)
return 1
`;

/** KEYS: budget, open, holds. What the key's open reservations hold, lapsed leases swept first. */
export const RESERVED_LUA = `${PRELUDE}
local reserved = tonumber(redis.call('HGET', KEYS[1], 'reserved'))
if reserved == nil then return '0' end
return int(sweptReserved(KEYS[1], KEYS[2], KEYS[3], reserved))
`;
