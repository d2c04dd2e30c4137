-- lease-borrow.lua: claims one free or expired worker id (slot) of a namespace in one atomic step,
-- judged by the Redis clock. Never a counter taken modulo the slot count.
--
-- KEYS (all share the hash tag {<prefix>:<namespace>}, so the script runs on Redis Cluster):
--   KEYS[1]  gen      hash {id, run_id, floor, guard, ms}: the data generation marker
--   KEYS[2]  owner    hash slot -> owner token of the lease
--   KEYS[3]  expires  hash slot -> end of the lease, Redis ms
--   KEYS[4]  hw       hash slot -> stored high-water, ms
--   KEYS[5]  info     hash slot -> "host=..;pid=..;started=.." for humans
-- ARGV:
--   ARGV[1]  slotCount     slots 0 .. slotCount-1
--   ARGV[2]  owner         the borrower's owner token
--   ARGV[3]  ttlMs         lease length
--   ARGV[4]  workerNowMs   the borrower's clock
--   ARGV[5]  maxSkewMs     largest tolerated worker/Redis clock difference
--   ARGV[6]  info          host, pid and start time of the borrower
-- Reply:
--   {'OK', slot, floor, highWater, generationId}  floor = the slot's effective high-water before the claim
--   {'EXHAUSTED'}                                  every slot is held by a live lease
--   {'RETRY'}                                      the generation started in this millisecond; call again
--
-- Claim: among claimable slots (no owner, or lease ended before now) the lowest one whose effective high-water
-- is below the borrower's clock, else the one with the lowest effective high-water. It stores owner,
-- expires = now + ttl, hw = max(floor + 1, workerNow + ttl) and info.
--
-- Generation: when the marker is missing or was written by another Redis process (restart, stale snapshot,
-- failover), a new generation starts at Redis time ms with floor = max(old floor + 1, ms + guard), where guard
-- is the largest ttl + maxSkew any borrower of the namespace asked for (kept in the marker; this borrower's own
-- when the marker is gone). A slot's effective high-water is max(stored hw, generation floor).
--
-- Why that floor suffices: every high-water stored at Redis time t is at most t + guard, given worker clocks
-- within maxSkew of Redis:
--   * renew stores at most the holder's clock + ttl;
--   * return stores the last issued timestamp, at most the holder's clock;
--   * borrow stores max(floor + 1, workerNow + ttl), not floor + 1 + ttl: when the floor is ahead the borrower
--     waits for its clock to pass it anyway and renews from there. A floor ahead of now is either a generation
--     floor, started in an earlier millisecond (hence RETRY), so floor + 1 <= now + guard, or the high-water of
--     an expired lease, at most maxSkew ahead once its ttl has passed.
-- A generation started after a data loss at Redis time t' >= t therefore has a floor >= t + guard, at or above
-- every high-water a holder of an older generation stored; and such a holder is never renewed again.

if redis.replicate_commands then
  pcall(redis.replicate_commands)
end

local function num(n)
  return string.format('%.0f', n)
end

local time = redis.call('TIME')
local now_ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

local function generation(ttl, skew)
  local run_id = string.match(redis.call('INFO', 'server'), 'run_id:(%w+)')
  local g = redis.call('HMGET', KEYS[1], 'id', 'run_id', 'floor', 'guard', 'ms')
  local guard = math.max(tonumber(g[4]) or 0, ttl + skew)
  if g[1] and g[2] == run_id then
    if guard > (tonumber(g[4]) or 0) then
      redis.call('HSET', KEYS[1], 'guard', num(guard))
    end
    return g[1], tonumber(g[3]) or 0, tonumber(g[5]) or 0
  end
  local floor = now_ms + guard
  local old_floor = tonumber(g[3])
  if old_floor and old_floor + 1 > floor then
    floor = old_floor + 1
  end
  local id = time[1] .. string.format('%06d', tonumber(time[2]))
  redis.call('HSET', KEYS[1], 'id', id, 'run_id', run_id, 'floor', num(floor), 'guard', num(guard),
      'ms', num(now_ms))
  return id, floor, now_ms
end

local function hash(key)
  local flat = redis.call('HGETALL', key)
  local map = {}
  for i = 1, #flat, 2 do
    map[flat[i]] = flat[i + 1]
  end
  return map
end

local slot_count = tonumber(ARGV[1])
local owner = ARGV[2]
local ttl = tonumber(ARGV[3])
local worker_now = tonumber(ARGV[4])
local skew = tonumber(ARGV[5])

local gen_id, gen_floor, gen_ms = generation(ttl, skew)
if now_ms <= gen_ms then
  return {'RETRY'}
end

local owners = hash(KEYS[2])
local expires = hash(KEYS[3])
local hws = hash(KEYS[4])

local chosen, chosen_hw
for slot = 0, slot_count - 1 do
  local field = tostring(slot)
  if owners[field] == nil or (tonumber(expires[field]) or 0) < now_ms then
    local eff = math.max(tonumber(hws[field]) or 0, gen_floor)
    if eff < worker_now then
      chosen, chosen_hw = slot, eff
      break
    end
    if chosen == nil or eff < chosen_hw then
      chosen, chosen_hw = slot, eff
    end
  end
end

if chosen == nil then
  return {'EXHAUSTED'}
end

local field = tostring(chosen)
local high_water = math.max(chosen_hw + 1, worker_now + ttl)
redis.call('HSET', KEYS[2], field, owner)
redis.call('HSET', KEYS[3], field, num(now_ms + ttl))
redis.call('HSET', KEYS[4], field, num(high_water))
redis.call('HSET', KEYS[5], field, ARGV[6])
return {'OK', chosen, chosen_hw, high_water, gen_id}
