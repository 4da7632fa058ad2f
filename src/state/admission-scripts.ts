/**
 * The Lua of the shared admission gate. Per virtual key, and per team, four keys (one hash tag, so
 * a cluster keeps them on one node; a key of a team keeps its own under its team's tag, see
 * gate-counters.ts): `rate` (hash: the request and token buckets, levels in token-milliseconds and
 * the Redis time they were taken at), `budget` (hash: the period it counts,
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
 * KEYS: four per subject — rate, budget, open, holds — the key's, then its team's when the team has
 * limits (all under one hash tag). ARGV: estimated tokens, maximum cost micros, minimum cost micros
 * (what is left is reserved when the maximum does not fit but this does; equal to the maximum: all
 * or nothing), reservation id, lease ms, budget keys' idle TTL ms; then five per subject: rpm (0:
 * none), tpm (0: none), budget micros (-1: no budget), period start ms, the ledger's spend (-1: not read).
 *
 * The request passes every subject's limits and budget or is charged by none. Replies `{'seed',
 * subject numbers…}`, changing nothing, when Redis holds no spend for a subject's period and no
 * ledger figure came with the call. Otherwise `{verdict, detail, now, by, then per subject its
 * requests level, tokens level, spent, reserved}` ('' for what does not apply): verdict `ok` (detail:
 * micros reserved, the same in every budget: what the tightest has room for), `rpm` / `tpm`
 * (detail: the longest wait in ms; nothing charged) or `budget` (detail: micros available; the
 * request still counts against every rpm, no tokens are charged); `by`: the number of the subject
 * that refused (1 the key, 2 its team), 0 when admitted.
 */
export const ADMIT_LUA = `${PRELUDE}
local estimated, maxCost, minCost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local id, leaseMs, budgetTtlMs = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6])

local subjects, unseeded = {}, {}
for i = 1, #KEYS / 4 do
  local arg = 6 + (i - 1) * 5
  local s = {
    rateKey = KEYS[i * 4 - 3], budgetKey = KEYS[i * 4 - 2], openKey = KEYS[i * 4 - 1], holdsKey = KEYS[i * 4],
    rpm = tonumber(ARGV[arg + 1]), tpm = tonumber(ARGV[arg + 2]), budget = tonumber(ARGV[arg + 3]),
    period = tonumber(ARGV[arg + 4]), seed = tonumber(ARGV[arg + 5]), spent = '', reserved = ''
  }
  if s.budget >= 0 then
    local state = redis.call('HMGET', s.budgetKey, 'period', 'spent', 'reserved')
    local heldPeriod = tonumber(state[1])
    if heldPeriod == nil or s.period > heldPeriod then
      s.newPeriod = true
      if s.seed < 0 then unseeded[#unseeded + 1] = tostring(i) end
    else
      s.spent, s.reserved = tonumber(state[2]), tonumber(state[3])
    end
  end
  subjects[i] = s
end
if #unseeded > 0 then return {'seed', unpack(unseeded)} end

for _, s in ipairs(subjects) do
  if s.budget >= 0 then
    if s.newPeriod then
      -- A new period starts from the ledger's sum for it; the old period's reservations lapse with it.
      redis.call('DEL', s.openKey, s.holdsKey)
      s.spent, s.reserved = math.max(0, s.seed), 0
      redis.call('HSET', s.budgetKey, 'period', int(s.period), 'spent', int(s.spent), 'reserved', 0)
    else
      s.reserved = sweptReserved(s.budgetKey, s.openKey, s.holdsKey, s.reserved)
    end
    redis.call('PEXPIRE', s.budgetKey, budgetTtlMs)
  end
  local rate = redis.call('HMGET', s.rateKey, 'requests', 'requests_at', 'tokens', 'tokens_at')
  if s.rpm > 0 then s.requests = refilled(tonumber(rate[1]), tonumber(rate[2]), s.rpm) end
  if s.tpm > 0 then s.tokens = refilled(tonumber(rate[3]), tonumber(rate[4]), s.tpm) end
end

local function waitMs(level, needed, limit)
  local missing = needed * WINDOW_MS - level
  if missing <= 0 then return 0 end
  return math.ceil(missing / limit)
end
local function levels(verdict, detail, by)
  local function shown(x) if x == nil or x == '' then return '' end return int(x) end
  local reply = {verdict, int(detail), int(now), tostring(by)}
  for _, s in ipairs(subjects) do
    for _, figure in ipairs({shown(s.requests), shown(s.tokens), shown(s.spent), shown(s.reserved)}) do reply[#reply + 1] = figure end
  end
  return reply
end

-- Every limit must have room: the caller is told the longest wait, and nothing is charged.
local wait, waitLimit, waitBy = 0, '', 0
for i, s in ipairs(subjects) do
  local requestsWait = s.requests and waitMs(s.requests, 1, s.rpm) or 0
  -- A request larger than the whole limit waits for a full bucket, then takes it into debt.
  local tokensWait = s.tokens and waitMs(s.tokens, math.min(estimated, s.tpm), s.tpm) or 0
  if requestsWait > wait then wait, waitLimit, waitBy = requestsWait, 'rpm', i end
  if tokensWait > wait then wait, waitLimit, waitBy = tokensWait, 'tpm', i end
end
if wait > 0 then return levels(waitLimit, wait, waitBy) end

local hold, refusedBy, refusedAvailable = maxCost, 0, 0
for i, s in ipairs(subjects) do
  if s.budget >= 0 and refusedBy == 0 then
    local available = s.budget - s.spent - s.reserved
    -- A spent budget refuses even a request of unknown price (maximum cost 0).
    if available <= 0 or minCost > available then
      refusedBy, refusedAvailable = i, math.max(0, available)
    else
      hold = math.min(hold, available)
    end
  end
end
for _, s in ipairs(subjects) do
  if s.requests then
    s.requests = s.requests - WINDOW_MS
    redis.call('HSET', s.rateKey, 'requests', int(s.requests), 'requests_at', int(now))
    keepRateUntilFull(s.rateKey, s.requests, s.rpm)
  end
end
if refusedBy > 0 then return levels('budget', refusedAvailable, refusedBy) end
for _, s in ipairs(subjects) do
  if s.tokens then
    s.tokens = s.tokens - estimated * WINDOW_MS
    redis.call('HSET', s.rateKey, 'tokens', int(s.tokens), 'tokens_at', int(now))
    keepRateUntilFull(s.rateKey, s.tokens, s.tpm)
  end
  if s.budget >= 0 then
    redis.call('ZADD', s.openKey, int(now + leaseMs), id)
    redis.call('HSET', s.holdsKey, id, int(hold))
    s.reserved = s.reserved + hold
    redis.call('HSET', s.budgetKey, 'reserved', int(s.reserved))
    redis.call('PEXPIRE', s.openKey, budgetTtlMs)
    redis.call('PEXPIRE', s.holdsKey, budgetTtlMs)
  end
end
return levels('ok', hold, 0)
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
