-- segment-install.lua: installs a range freshly allocated from the database, as the tag's current range or as the
-- range ahead of it, only while the caller holds the refill lock and only if the range lies above both ranges in
-- the hash. A range that fails either check is discarded by the caller: a gap, never a reuse.
--
-- KEYS (all share the hash tag {<prefix>:segment:<tag>}):
--   KEYS[1]  range  hash {v_l, v_h, n_l, n_h, run_id, step, installed_ms}
--   KEYS[2]  lock   the refill lock, holding '<token>|<identity>'
-- ARGV:
--   ARGV[1]  token  the caller's lock token
--   ARGV[2]  vl     first number of the new range minus one (becomes v_l, the last number issued, or n_l)
--   ARGV[3]  vh     last number of the new range (becomes v_h, or n_h)
--   ARGV[4]  step   size of the new range, for operators
--   ARGV[5]  where  'current', or 'ahead': behind the current range, which stays in use until it cannot serve a
--                   call. An 'ahead' range goes in as the current one when the hash has no usable current range
--                   (missing, or stamped by another Redis identity).
-- Reply:
--   {'OK', 'CURRENT'}      installed as the current range, stamped with this Redis identity; any range ahead is
--                          dropped (a gap)
--   {'OK', 'AHEAD'}        installed ahead of the current range, which carries this Redis identity
--   {'NOT_OWNER'}          the caller's lock expired, was taken over, or came back with a restart (another
--                          identity); another refill may be under way
--   {'BELOW', high}        the range does not lie above v_h or n_h (high, the larger): the database went back
--   {'AHEAD_TAKEN'}        a range ahead is already installed
--
-- Why the lock check: the lock lives in the same data as the range, so a lock taken before Redis lost its data
-- is gone afterwards; and a lock that a restart from a snapshot brought back carries the identity of the Redis
-- that granted it, not this one's, so it is nobody's (lock-acquire.lua stores '<token>|<identity>'). Every
-- installed range was therefore allocated from the database after the last loss or restore and after every
-- earlier install, so it lies above every number issued before: numbers keep increasing.
-- Why 'ahead' checks the identity: a range ahead shares the hash's run_id, so it may join only a hash this Redis
-- identity stamped; a stale hash is replaced whole, never extended.

-- The identity of this Redis process in its present role: its replication id, which Redis draws anew at every
-- start (a snapshot or append-only file may have brought back older data) and at every promotion of a replica
-- (it may have lagged) -- also when a demoted master that resynced from its successor is promoted back, whose
-- run_id alone would not have changed. Data stamped with another identity may have gone back in time.
local function server_identity()
  local info = redis.call('INFO', 'replication')
  local i = string.find(info, 'master_replid:', 1, true)
  local j = string.find(info, '\r', i, true)
  return string.sub(info, i + 14, j - 1)
end

if redis.replicate_commands then
  pcall(redis.replicate_commands)
end

local run_id = server_identity()
if redis.call('GET', KEYS[2]) ~= ARGV[1] .. '|' .. run_id then
  return {'NOT_OWNER'}
end
local r = redis.call('HMGET', KEYS[1], 'v_l', 'v_h', 'run_id', 'n_h', 'n_l')
local floor = tonumber(r[2])
if r[4] and (not floor or tonumber(r[4]) > floor) then
  floor = tonumber(r[4])
end
if floor and tonumber(ARGV[2]) < floor then
  return {'BELOW', floor}
end
if ARGV[5] == 'ahead' and r[1] and r[2] and r[3] == run_id then
  -- only a whole range ahead is taken; a stray n_l or n_h alone is overwritten (its n_h still raised the floor)
  if r[4] and r[5] then
    return {'AHEAD_TAKEN'}
  end
  redis.call('HSET', KEYS[1], 'n_l', ARGV[2], 'n_h', ARGV[3])
  return {'OK', 'AHEAD'}
end
local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], 'v_l', ARGV[2], 'v_h', ARGV[3], 'run_id', run_id, 'step', ARGV[4],
  'installed_ms', string.format('%.0f', now_ms))
redis.call('HDEL', KEYS[1], 'n_l', 'n_h')
return {'OK', 'CURRENT'}
