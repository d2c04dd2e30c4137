-- segment-next.lua: issues the next count numbers of a segment tag from the range held in Redis, or says why it
-- cannot. Redis runs one script at a time, so numbers strictly increase in the order calls arrive, across all
-- clients. One client may combine the calls of several of its callers into one call (count is their sum).
--
-- KEYS (all share the hash tag {<prefix>:segment:<tag>}, so the script runs on Redis Cluster):
--   KEYS[1]  range  hash {v_l, v_h, n_l, n_h, run_id, step, installed_ms}: v_l = last number issued, v_h = last
--                   number of the current range, n_l/n_h = the range installed ahead (first number minus one,
--                   last number; both absent when none), run_id = the identity of the Redis process that
--                   installed the ranges
-- ARGV:
--   ARGV[1]  count      how many numbers, at least 1
--   ARGV[2]  checkRun   '1' to refuse a hash stamped by another Redis identity (default), '0' to skip the check
--                       (it costs an INFO call inside the script)
--   ARGV[3]  low        ask for a range ahead once fewer than this many numbers are left in the current range and
--                       none is installed ahead; '0' never asks
-- Reply:
--   last                         (an integer > 0) the numbers last - count + 1 .. last are now issued
--   -last                        the same numbers are issued, and the current range runs low with no range ahead:
--                                the caller should install one
--   {'MISSING'}                  no range (new tag, or Redis lost the hash)
--   {'MISSING', 'run_id'}        the hash was stamped by another Redis identity (restart that restored a snapshot
--                                or append-only file, failover to a replica): v_l may have gone back, so neither
--                                range in it is ever used again
--   {'EXHAUSTED', v_l, v_h}      fewer than count numbers left and no range ahead that holds count; the rest is
--                                skipped once a new range is installed
-- Numbers are at least 1, so a reply of 0 never occurs and the sign of an integer reply is free for the flag.
-- Numbers stay below 2^53, where Lua numbers are exact (the installer refuses ranges beyond).
--
-- Steps, the common one first: HMGET reads the hash (one command), INFO replication gives the identity (one
-- command, two plain finds, no pattern), HINCRBY issues from the current range (one command): three commands, no
-- string built. The switch to the range ahead and the status replies come after it. Redis 6.2 and later replicate
-- a script's effects, not the script, so INFO before a write needs no redis.replicate_commands() (a 6.2 set to
-- lua-replicate-commands no refuses the write with an error, never a wrong number).

local r = redis.call('HMGET', KEYS[1], 'v_l', 'v_h', 'run_id', 'n_l', 'n_h')
if not r[1] or not r[2] then
  return {'MISSING'}
end
-- The identity of this Redis process in its present role: its replication id, which Redis draws anew at every
-- start (a snapshot or append-only file may have brought back older data) and at every promotion of a replica
-- (it may have lagged) -- also when a demoted master that resynced from its successor is promoted back, whose
-- run_id alone would not have changed. Data stamped with another identity may have gone back in time. Read on
-- every call, never cached: only INFO sees a promotion. Inline, not a function: no closure per call.
if ARGV[2] ~= '0' then
  local info = redis.call('INFO', 'replication')
  local i = string.find(info, 'master_replid:', 1, true)
  if r[3] ~= string.sub(info, i + 14, string.find(info, '\r', i, true) - 1) then
    return {'MISSING', 'run_id'}
  end
end
local count = tonumber(ARGV[1])
local high = tonumber(r[2])
if high - tonumber(r[1]) >= count then
  local last = redis.call('HINCRBY', KEYS[1], 'v_l', count)
  -- a range ahead counts only whole: a hash that lost one of n_l/n_h (an operator's edit, a partial restore) has none
  if (r[4] and r[5]) or high - last >= tonumber(ARGV[3]) then
    return last
  end
  return -last
end
-- rare: the current range cannot serve count numbers
if r[4] and r[5] and tonumber(r[5]) - tonumber(r[4]) >= count then
  -- The range ahead lies above v_h (the installer checked), so switching keeps numbers increasing; the unused
  -- rest of the current range is a gap. Formatted, not tostring(): Lua prints large numbers with 14 digits.
  high = tonumber(r[5])
  local last = tonumber(r[4]) + count
  redis.call('HSET', KEYS[1], 'v_l', string.format('%.0f', last), 'v_h', r[5])
  redis.call('HDEL', KEYS[1], 'n_l', 'n_h')
  if high - last < tonumber(ARGV[3]) then
    return -last
  end
  return last
end
return {'EXHAUSTED', tonumber(r[1]), high}
