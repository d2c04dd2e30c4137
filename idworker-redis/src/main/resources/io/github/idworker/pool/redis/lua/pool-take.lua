-- pool-take.lua: takes count IDs from the head of one entity's pool, all or nothing, within the entity's rate limit.
-- Redis runs one script at a time, so takes are ordered the way they arrive, across all clients.
--
-- KEYS (all share the hash tag {<prefix>:pool:<entity>}, so the script runs on Redis Cluster):
--   KEYS[1]  ids   list of IDs, in the order they are handed out
--   KEYS[2]  meta  hash {run_id, hw, env}: run_id = the identity of the Redis that holds the pool, hw = the largest
--                  ID ever appended (absent until a refiller seeded it from the database), env = the environment
--                  split 'e/E' of the IDs in the list
--   KEYS[3]  rate  hash {sec, count, prev}: IDs taken in second sec (Redis clock), and in the second before it
-- ARGV:
--   ARGV[1]  count         IDs to take, at least 1
--   ARGV[2]  maxPerSecond  the entity's limit across all nodes
--   ARGV[3]  env           the caller's environment split 'e/E'
-- Reply:
--   {'OK', left, {id, ...}}      count IDs, removed from the pool; left remain
--   {'RATE', waitMs, used}       count more would pass maxPerSecond in this second; nothing taken
--   {'EMPTY', level, rate}       fewer than count IDs in the pool; nothing taken; rate = IDs of the last second
--   {'ENV', env}                 the list holds IDs of another environment split; nothing taken
--   {'RESET'}                    the pool was written by another Redis (restart, restored snapshot, fail-over): it
--                                may hold IDs already handed out, so it was dropped; nothing taken

-- The identity of this Redis in its present role: its replication id, which Redis draws anew at every start (a
-- snapshot or append-only file may have brought back older data) and at every promotion of a replica (it may have
-- lagged). A pool stamped with another identity may have gone back in time.
local function server_identity()
  local info = redis.call('INFO', 'replication')
  local i = string.find(info, 'master_replid:', 1, true)
  local j = string.find(info, '\r', i, true)
  return string.sub(info, i + 14, j - 1)
end

if redis.replicate_commands then
  pcall(redis.replicate_commands)
end

local count = tonumber(ARGV[1])
local run_id = server_identity()
local meta = redis.call('HMGET', KEYS[2], 'run_id', 'env')
if meta[1] ~= run_id then
  -- a missing stamp counts as foreign too: the list beside it cannot be vouched for
  redis.call('DEL', KEYS[1], KEYS[2])
  redis.call('HSET', KEYS[2], 'run_id', run_id)
  return {'RESET'}
end
if meta[2] and ARGV[3] and meta[2] ~= ARGV[3] then
  return {'ENV', meta[2]}
end

local now = redis.call('TIME')
local sec = tonumber(now[1])
local r = redis.call('HMGET', KEYS[3], 'sec', 'count', 'prev')
local rsec = tonumber(r[1])
local used = 0
local last = 0
if rsec == sec then
  used = tonumber(r[2])
  last = tonumber(r[3]) or 0
elseif rsec == sec - 1 then
  last = tonumber(r[2])
end
if used + count > tonumber(ARGV[2]) then
  return {'RATE', 1000 - math.floor(tonumber(now[2]) / 1000), used}
end

local level = redis.call('LLEN', KEYS[1])
if level < count then
  return {'EMPTY', level, last}
end
local ids = redis.call('LPOP', KEYS[1], count)
if rsec == sec then
  redis.call('HINCRBY', KEYS[3], 'count', count)
else
  redis.call('HSET', KEYS[3], 'sec', sec, 'count', count, 'prev', last)
  redis.call('PEXPIRE', KEYS[3], 10000)
end
return {'OK', level - count, ids}
