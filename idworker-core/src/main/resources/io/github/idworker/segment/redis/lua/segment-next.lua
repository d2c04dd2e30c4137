-- segment-next.lua: issues the next count numbers of a segment tag from the range held in Redis, or says why it
-- cannot. Redis runs one script at a time, so numbers strictly increase in the order calls arrive, across all
-- clients.
--
-- KEYS (all share the hash tag {<prefix>:segment:<tag>}, so the script runs on Redis Cluster):
--   KEYS[1]  range  hash {v_l, v_h, run_id, step, installed_ms}: v_l = last number issued, v_h = last number of
--                   the range, run_id = the Redis process that installed it
-- ARGV:
--   ARGV[1]  count      how many numbers, at least 1
--   ARGV[2]  checkRun   '1' to refuse a range installed by another Redis process (default), '0' to skip the
--                       check (it costs an INFO call, about 5-10 microseconds of Redis time per call)
-- Reply:
--   {'OK', first, last}          last - first + 1 = count; the numbers first..last are now issued
--   {'MISSING'}                  no range (new tag, or Redis lost its data)
--   {'MISSING', 'run_id'}        the range was installed by another Redis process (restart that restored a
--                                snapshot or append-only file, failover to a replica): v_l may have gone back, so
--                                the range is never used again
--   {'EXHAUSTED', v_l, v_h}      fewer than count numbers left; the rest of the range is skipped once a new
--                                range is installed
-- Status codes are for the caller's refill logic and never reach users as numbers. Numbers stay below 2^53,
-- where Lua numbers are exact (the installer refuses ranges beyond).

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

local count = tonumber(ARGV[1])
local r = redis.call('HMGET', KEYS[1], 'v_l', 'v_h', 'run_id')
if not r[1] or not r[2] then
  return {'MISSING'}
end
if ARGV[2] ~= '0' then
  local run_id = server_identity()
  if r[3] ~= run_id then
    return {'MISSING', 'run_id'}
  end
end
local low = tonumber(r[1])
local high = tonumber(r[2])
if high - low < count then
  return {'EXHAUSTED', low, high}
end
local last = redis.call('HINCRBY', KEYS[1], 'v_l', count)
return {'OK', last - count + 1, last}
