-- serial-unlock.lua: releases the refill lock of one serial rule and period, only if the caller's token still
-- owns it (compare and delete), so a refill whose lock expired never frees the lock of the next owner.
--
-- KEYS (all share the hash tag {<prefix>:serial:<rule>}):
--   KEYS[1]  lock   string holding the owner token
-- ARGV:
--   ARGV[1]  token  the caller's token
-- Reply: 1 when released, 0 when the lock was gone or held by another owner.

if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
