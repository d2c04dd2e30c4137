-- serial-install.lua: adds numbers just reserved in the database to the stock of one serial rule and period,
-- only while the caller holds the refill lock and only above every number of the stock. A range that fails
-- either check is dropped by the caller: a gap, never a reuse.
--
-- KEYS (all share the hash tag {<prefix>:serial:<rule>}):
--   KEYS[1]  stock  hash {lo, hi, run_id, installed_ms}
--   KEYS[2]  lock   the refill lock, holding '<token>|<identity>'
-- ARGV:
--   ARGV[1]  token     the caller's lock token
--   ARGV[2]  first     first number of the reserved range
--   ARGV[3]  last      last number of the reserved range
--   ARGV[4]  ttl       ms from now (Redis's now) after which the period's stock may go (0 = never). Relative, so
--                      an application clock days away from Redis's never expires a live stock at once
-- Reply:
--   {'EXTENDED', left}   the range continues the stock (first = hi + 1): the stock now ends at last
--   {'REPLACED', left}   no usable stock, or the range starts above hi + 1 (an earlier reservation was lost, a
--                        gap): the stock is now exactly the range, with the run_id of this Redis process
--   {'NOT_OWNER'}        the caller's lock expired, was taken over, or came back with a restart (another identity)
--   {'BELOW', hi}        the range does not lie above the stock: the database went back, or a refill whose lock
--                        was lost installed a later range first
--
-- Why the lock check: the lock lives beside the stock, so a lock taken before Redis lost its data is gone
-- afterwards; and a lock that a restart from a snapshot brought back carries the identity of the Redis that
-- granted it, not this one's, so it is nobody's (lock-acquire.lua stores '<token>|<identity>'). Every installed
-- range was reserved after the last loss or restore and after every earlier install.

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

local run_id = server_identity()
if redis.call('GET', KEYS[2]) ~= ARGV[1] .. '|' .. run_id then
  return {'NOT_OWNER'}
end
local first = tonumber(ARGV[2])
local last = tonumber(ARGV[3])
local r = redis.call('HMGET', KEYS[1], 'lo', 'hi', 'run_id')
local t = redis.call('TIME')
local now_ms = string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
local reply
if r[1] and r[2] and r[3] == run_id then
  local lo = tonumber(r[1])
  local hi = tonumber(r[2])
  if first <= hi then
    return {'BELOW', hi}
  end
  if first == hi + 1 then
    redis.call('HSET', KEYS[1], 'hi', ARGV[3], 'installed_ms', now_ms)
    reply = {'EXTENDED', last - lo}
  end
end
if not reply then
  redis.call('HSET', KEYS[1], 'lo', string.format('%.0f', first - 1), 'hi', ARGV[3], 'run_id', run_id,
    'installed_ms', now_ms)
  reply = {'REPLACED', last - first + 1}
end
if ARGV[4] ~= '0' then
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end
return reply
