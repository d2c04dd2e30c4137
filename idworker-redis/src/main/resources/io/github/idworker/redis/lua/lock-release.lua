-- lock-release.lua: releases a refill lock only if the caller's token still owns it under this Redis identity
-- (compare and delete), so a refill whose lock expired never frees the lock of the next owner.
--
-- KEYS[1]  the lock, holding '<token>|<identity>' (lock-acquire.lua)
-- ARGV[1]  the caller's token
-- Reply: 1 when released, 0 when the lock was gone, held by another owner, or brought back by a restart (another
-- identity: nobody's lock, it expires by itself).

-- The identity of this Redis process in its present role: its replication id, which Redis draws anew at every
-- start (a snapshot or append-only file may have brought back older data) and at every promotion of a replica.
local function server_identity()
  local info = redis.call('INFO', 'replication')
  local i = string.find(info, 'master_replid:', 1, true)
  local j = string.find(info, '\r', i, true)
  return string.sub(info, i + 14, j - 1)
end

if redis.call('GET', KEYS[1]) == ARGV[1] .. '|' .. server_identity() then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
