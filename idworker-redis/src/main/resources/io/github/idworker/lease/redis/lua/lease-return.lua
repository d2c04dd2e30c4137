-- lease-return.lua: frees a slot and stores the holder's last issued timestamp as its high-water, only while
-- the holder still owns it in the generation it was borrowed in; otherwise changes nothing.
--
-- KEYS (the hash tag {<prefix>:<namespace>}, so the script runs on Redis Cluster):
--   KEYS[1]  lease    hash of the namespace: generation marker (id, run_id, floor, guard, ms), layout,
--                     slots_created and one field per slot, "highWater|expires|owner|info"
-- ARGV:
--   ARGV[1]  slot
--   ARGV[2]  owner         the holder's owner token
--   ARGV[3]  lastIssuedMs  timestamp of the holder's last identifier
--   ARGV[4]  generationId  the generation the lease was borrowed in
-- Reply:
--   {'OK'}       the slot is free (empty owner, expires 0) and its high-water is lastIssuedMs; info is kept to
--                show the last holder
--   {'IGNORED'}  the lease was already lost (other owner, record missing, or another generation); nothing
--                changed

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

local field = ARGV[1]
local run_id = server_identity()
local g = redis.call('HMGET', KEYS[1], 'id', 'run_id', field)
if not g[1] or g[1] ~= ARGV[4] or g[2] ~= run_id or not g[3] then
  return {'IGNORED'}
end
local holder, info = string.match(g[3], '^%-?%d+|%-?%d+|([^|]*)|(.*)$')
if holder == nil or holder ~= ARGV[2] then
  return {'IGNORED'}
end

redis.call('HSET', KEYS[1], field, ARGV[3] .. '|0||' .. info)
return {'OK'}
