-- lease-renew.lua: extends a lease and raises its stored high-water, only while the slot's record still names
-- the caller's token and the data generation is the one the lease was borrowed in.
--
-- KEYS (the hash tag {<prefix>:<namespace>}, so the script runs on Redis Cluster):
--   KEYS[1]  lease    hash of the namespace: generation marker (id, run_id, floor, guard, ms), layout,
--                     slots_created and one field per slot, "highWater|expires|owner|info"
-- ARGV:
--   ARGV[1]  slot
--   ARGV[2]  owner         the holder's owner token
--   ARGV[3]  ttlMs         lease length
--   ARGV[4]  newHighWater  the high-water the holder wants to issue up to, ms
--   ARGV[5]  generationId  the generation the lease was borrowed in
--   ARGV[6]  maxSkewMs     largest tolerated holder/Redis clock difference
-- Reply:
--   {'OK', highWater}        the stored high-water, max(stored, newHighWater)
--   {'LOST', 'generation'}   the marker is missing, was written by another Redis process (restart, stale
--                            snapshot, failover) or names another generation: a lease of an old generation is
--                            never renewed, because after a stale restore its owner token may still be stored
--                            while a successor of the newer generation holds the slot
--   {'LOST', 'record'}       the slot's record is missing or unreadable (deleted by hand): a successor may
--                            already hold the slot above a floor of now + ttl + max skew
--   {'LOST', 'owner'}        the slot is free or held by another owner
--   {'AHEAD', redisNowMs}    newHighWater lies above the stored high-water and above Redis time + ttl + maxSkew:
--                            the holder (which asks for its clock + ttl) runs more than maxSkew ahead of Redis, and
--                            a generation started after a loss could not bound that high-water (DESIGN rule 13);
--                            nothing is written and the holder fences itself at its stored high-water
--
-- Renew never starts a generation or writes a missing record itself: the next borrow does, with the borrower's
-- ttl and maxSkew. Until then every renewal fails, so a later start only raises the floor.

-- The identity of this Redis process in its present role: its replication id, which Redis draws anew at every
-- start (a snapshot or append-only file may have brought back older data) and at every promotion of a replica
-- (it may have lagged) -- also when a demoted master that resynced from its successor is promoted back, whose
-- run_id alone would not have changed. Data stamped with another identity may have gone back in time. A plain
-- find, not a pattern: this runs on every call.
local function server_identity()
  local info = redis.call('INFO', 'replication')
  local i = string.find(info, 'master_replid:', 1, true)
  local j = string.find(info, '\r', i, true)
  return string.sub(info, i + 14, j - 1)
end

if redis.replicate_commands then
  pcall(redis.replicate_commands)
end

local function num(s)
  return string.format('%.0f', s)
end

local field = ARGV[1]
local run_id = server_identity()
local g = redis.call('HMGET', KEYS[1], 'id', 'run_id', field)
if not g[1] or g[2] ~= run_id or g[1] ~= ARGV[5] then
  return {'LOST', 'generation'}
end
local hw, holder, info
if g[3] then
  hw, holder, info = string.match(g[3], '^(%-?%d+)|%-?%d+|([^|]*)|(.*)$')
end
if hw == nil then
  return {'LOST', 'record'}
end
if holder ~= ARGV[2] then
  return {'LOST', 'owner'}
end

local time = redis.call('TIME')
local now_ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local requested = tonumber(ARGV[4])
if requested > tonumber(hw) and requested > now_ms + tonumber(ARGV[3]) + tonumber(ARGV[6] or '0') then
  return {'AHEAD', num(now_ms)}
end
local high_water = math.max(tonumber(hw), requested)
redis.call('HSET', KEYS[1], field,
    num(high_water) .. '|' .. num(now_ms + tonumber(ARGV[3])) .. '|' .. holder .. '|' .. info)
return {'OK', high_water}
