-- segment-ahead-check.lua: tells a refill that holds the lock whether a range is still wanted ahead of the
-- current one, before it allocates from the database (a range allocated and then not installed is a gap).
--
-- KEYS (all share the hash tag {<prefix>:segment:<tag>}):
--   KEYS[1]  range  hash {v_l, v_h, n_l, n_h, run_id, step, installed_ms}
-- ARGV:
--   ARGV[1]  low    a range ahead is wanted once fewer than this many numbers are left in the current range
-- Reply:
--   {'AHEAD'}    the current range is this Redis identity's, runs low and has no range ahead: install one
--   {'CURRENT'}  no usable current range (missing, or stamped by another Redis identity): install as current
--   {'NONE'}     nothing to do: a range ahead exists, or the current range has enough left

local function server_identity()
  local info = redis.call('INFO', 'replication')
  local i = string.find(info, 'master_replid:', 1, true)
  local j = string.find(info, '\r', i, true)
  return string.sub(info, i + 14, j - 1)
end

local r = redis.call('HMGET', KEYS[1], 'v_l', 'v_h', 'run_id', 'n_l', 'n_h')
if not r[1] or not r[2] or r[3] ~= server_identity() then
  return {'CURRENT'}
end
-- a range ahead counts only whole, as in segment-next.lua: half of one is replaced by the next install
if (r[4] and r[5]) or tonumber(r[2]) - tonumber(r[1]) >= tonumber(ARGV[1]) then
  return {'NONE'}
end
return {'AHEAD'}
