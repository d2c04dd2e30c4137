-- segment-install.lua: installs a range freshly allocated from the database as the tag's current range, only
-- while the caller holds the refill lock and only if the range lies above the current one. A range that fails
-- either check is discarded by the caller: a gap, never a reuse.
--
-- KEYS (all share the hash tag {<prefix>:segment:<tag>}):
--   KEYS[1]  range  hash {v_l, v_h, run_id, step, installed_ms}
--   KEYS[2]  lock   the refill lock
-- ARGV:
--   ARGV[1]  token  the caller's lock token
--   ARGV[2]  vl     first number of the new range minus one (becomes v_l, the last number issued)
--   ARGV[3]  vh     last number of the new range (becomes v_h)
--   ARGV[4]  step   size of the new range, for operators
-- Reply:
--   {'OK'}                 installed, with the run_id of this Redis process
--   {'NOT_OWNER'}          the caller's lock expired or was taken over; another refill may be under way
--   {'BELOW', v_h}         the range does not lie above the current v_h: the database went back
--
-- Why the lock check: the lock lives in the same data as the range, so a lock taken before Redis lost its data
-- is gone afterwards. Every installed range was therefore allocated from the database after the last loss and
-- after every earlier install, so it lies above every number issued before: numbers keep increasing.

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

if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return {'NOT_OWNER'}
end
local current = redis.call('HGET', KEYS[1], 'v_h')
if current and tonumber(ARGV[2]) < tonumber(current) then
  return {'BELOW', tonumber(current)}
end
local run_id = server_identity()
local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], 'v_l', ARGV[2], 'v_h', ARGV[3], 'run_id', run_id, 'step', ARGV[4],
  'installed_ms', string.format('%.0f', now_ms))
return {'OK'}
