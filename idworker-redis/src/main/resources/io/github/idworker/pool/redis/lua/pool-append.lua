-- pool-append.lua: appends IDs a refiller reserved in the database to the tail of one entity's pool, or seeds the
-- pool's high-water. Accepted only from the holder of the refill lock, only in the Redis that stamped the pool,
-- only above every ID appended before, and never past max-pool-size: a refiller that stalled past its lock, or
-- that reserved before Redis lost its data, cannot put old IDs behind newer ones.
--
-- KEYS (all share the hash tag {<prefix>:pool:<entity>}):
--   KEYS[1]  ids   the list of IDs
--   KEYS[2]  meta  hash {run_id, hw, env}
--   KEYS[3]  lock  the refill lock, holding '<token>|<identity>' of its owner
-- ARGV:
--   ARGV[1]  token     the caller's lock token
--   ARGV[2]  mode      'APPEND', or 'SEED' to set hw = ARGV[4] when it is unknown (right below offsets reserved
--                      after the lock was taken, so at or above every ID appended before the loss), or 'TRIM' to
--                      cut the list's tail down to maxSize in whole chunks of ARGV[4] IDs (after an operator
--                      lowered max-pool-size; the tail holds the highest IDs, so this only makes a gap)
--                      'DROP' drops the list and sets hw = ARGV[4], the ID of the database's current offset, when the
--                      caller found, under the lock, a high-water below it: the list is older than the database
--                      (a snapshot loaded into the running Redis, a key prefix switched back, a refill that died
--                      between its reservation and its append)
--   ARGV[3]  maxSize   max-pool-size (APPEND, TRIM)
--   ARGV[4]  lowest    the smallest ID of this append (SEED: the high-water; TRIM: the chunk size)
--   ARGV[5]  highest   the largest ID of this append
--   ARGV[6]  env       the caller's environment split 'e/E', checked by the database when it reserved; stamped as
--                      env by SEED (and by the first APPEND to a pool seeded without one)
--   ARGV[7…] the IDs, in the order they are to be handed out
-- Reply:
--   {'OK', level}    appended (or seeded, or trimmed); level IDs in the pool now
--   {'LOCK'}         the caller does not hold the lock (it expired, Redis lost it, or a restart brought it back
--                    under another identity): nothing written
--   {'RESET'}        the pool was written by another Redis: dropped and stamped anew, nothing appended; seed it
--   {'SEED'}         hw unknown: seed it first; nothing appended
--   {'ENV', env}     the pool holds IDs of another environment split (two deployments share the keys): nothing
--   {'STALE', hw}    lowest is not above hw: these IDs are older than the pool; nothing appended
--   {'FULL', level}  the append would pass maxSize; nothing appended
-- IDs are compared as decimal strings, since Lua numbers are exact only below 2^53.

local function server_identity()
  local info = redis.call('INFO', 'replication')
  local i = string.find(info, 'master_replid:', 1, true)
  local j = string.find(info, '\r', i, true)
  return string.sub(info, i + 14, j - 1)
end

-- a <= b for decimal integers without leading zeros, '-1' standing below every ID
local function at_most(a, b)
  if a == '-1' then return true end
  if b == '-1' then return false end
  if #a ~= #b then return #a < #b end
  return a <= b
end

local run_id = server_identity()
local meta = redis.call('HMGET', KEYS[2], 'run_id', 'hw', 'env')
if meta[1] ~= run_id then
  redis.call('DEL', KEYS[1], KEYS[2])
  redis.call('HSET', KEYS[2], 'run_id', run_id)
  return {'RESET'}
end
-- the lock is the caller's only as '<token>|<this identity>' (lock-acquire.lua): a lock a restart from a snapshot
-- brought back is nobody's, its holder may have reserved before a loss that came in between
if redis.call('GET', KEYS[3]) ~= ARGV[1] .. '|' .. run_id then
  return {'LOCK'}
end
local level = redis.call('LLEN', KEYS[1])
if meta[3] and meta[3] ~= ARGV[6] then
  return {'ENV', meta[3]}
end
if ARGV[2] == 'TRIM' then
  local max = tonumber(ARGV[3])
  if level <= max then
    return {'OK', level}
  end
  local chunk = tonumber(ARGV[4])
  local keep = level - math.ceil((level - max) / chunk) * chunk
  if keep <= 0 then
    redis.call('DEL', KEYS[1])
    return {'OK', 0}
  end
  redis.call('LTRIM', KEYS[1], 0, keep - 1)
  return {'OK', keep}
end
if ARGV[2] == 'DROP' then
  -- the list is behind the database (checked under this lock): drop it and continue above the database's offset
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[2], 'hw', ARGV[4], 'env', ARGV[6])
  return {'OK', 0}
end
if ARGV[2] == 'SEED' then
  if not meta[2] then
    redis.call('HSET', KEYS[2], 'hw', ARGV[4], 'env', ARGV[6])
  end
  return {'OK', level}
end
if not meta[2] then
  return {'SEED'}
end
if at_most(ARGV[4], meta[2]) then
  return {'STALE', meta[2]}
end
local n = #ARGV - 6
if level + n > tonumber(ARGV[3]) then
  return {'FULL', level}
end
local i = 7
while i <= #ARGV do
  local j = math.min(i + 999, #ARGV)
  redis.call('RPUSH', KEYS[1], unpack(ARGV, i, j))
  i = j + 1
end
redis.call('HSET', KEYS[2], 'hw', ARGV[5], 'env', ARGV[6])
return {'OK', level + n}
