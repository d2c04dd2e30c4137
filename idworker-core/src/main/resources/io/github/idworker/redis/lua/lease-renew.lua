-- lease-renew.lua: extends a lease and raises its stored high-water, only while the slot is still owned by
-- the caller's token and the data generation is the one the lease was borrowed in.
--
-- KEYS (all share the hash tag {<prefix>:<namespace>}, so the script runs on Redis Cluster):
--   KEYS[1]  gen      hash {id, run_id, floor, guard, ms}: the data generation marker
--   KEYS[2]  owner    hash slot -> owner token of the lease
--   KEYS[3]  expires  hash slot -> end of the lease, Redis ms
--   KEYS[4]  hw       hash slot -> stored high-water, ms
-- ARGV:
--   ARGV[1]  slot
--   ARGV[2]  owner         the holder's owner token
--   ARGV[3]  ttlMs         lease length
--   ARGV[4]  newHighWater  the high-water the holder wants to issue up to, ms
--   ARGV[5]  generationId  the generation the lease was borrowed in
-- Reply:
--   {'OK', highWater}        the stored high-water, max(stored, newHighWater)
--   {'LOST', 'generation'}   the marker is missing, was written by another Redis process (restart, stale
--                            snapshot, failover) or names another generation: a lease of an old generation is
--                            never renewed, because after a stale restore its owner token may still be stored
--                            while a successor of the newer generation holds the slot
--   {'LOST', 'owner'}        the slot is free or held by another owner
--
-- Renew never starts a generation itself: the next borrow does, with the borrower's ttl and maxSkew. Until
-- then every renewal fails, so starting it later only raises its floor.

if redis.replicate_commands then
  pcall(redis.replicate_commands)
end

local function num(s)
  return string.format('%.0f', s)
end

local field = ARGV[1]
local run_id = string.match(redis.call('INFO', 'server'), 'run_id:(%w+)')
local g = redis.call('HMGET', KEYS[1], 'id', 'run_id')
if not g[1] or g[2] ~= run_id or g[1] ~= ARGV[5] then
  return {'LOST', 'generation'}
end
if redis.call('HGET', KEYS[2], field) ~= ARGV[2] then
  return {'LOST', 'owner'}
end

local time = redis.call('TIME')
local now_ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local high_water = math.max(tonumber(redis.call('HGET', KEYS[4], field)) or 0, tonumber(ARGV[4]))
redis.call('HSET', KEYS[3], field, num(now_ms + tonumber(ARGV[3])))
redis.call('HSET', KEYS[4], field, num(high_water))
return {'OK', high_water}
