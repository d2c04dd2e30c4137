-- lease-return.lua: frees a slot and stores the holder's last issued timestamp as its high-water, only while
-- the holder still owns it in the generation it was borrowed in; otherwise changes nothing.
--
-- KEYS (all share the hash tag {<prefix>:<namespace>}, so the script runs on Redis Cluster):
--   KEYS[1]  gen      hash {id, run_id, floor, guard, ms}: the data generation marker
--   KEYS[2]  owner    hash slot -> owner token of the lease
--   KEYS[3]  expires  hash slot -> end of the lease, Redis ms
--   KEYS[4]  hw       hash slot -> stored high-water, ms
-- ARGV:
--   ARGV[1]  slot
--   ARGV[2]  owner         the holder's owner token
--   ARGV[3]  lastIssuedMs  timestamp of the holder's last identifier
--   ARGV[4]  generationId  the generation the lease was borrowed in
-- Reply:
--   {'OK'}       the slot is free and its high-water is lastIssuedMs
--   {'IGNORED'}  the lease was already lost (other owner, or another generation); nothing changed

if redis.replicate_commands then
  pcall(redis.replicate_commands)
end

local run_id = string.match(redis.call('INFO', 'server'), 'run_id:(%w+)')
local g = redis.call('HMGET', KEYS[1], 'id', 'run_id')
local field = ARGV[1]
if not g[1] or g[1] ~= ARGV[4] or g[2] ~= run_id or redis.call('HGET', KEYS[2], field) ~= ARGV[2] then
  return {'IGNORED'}
end

redis.call('HDEL', KEYS[2], field)
redis.call('HSET', KEYS[3], field, '0')
redis.call('HSET', KEYS[4], field, ARGV[3])
return {'OK'}
