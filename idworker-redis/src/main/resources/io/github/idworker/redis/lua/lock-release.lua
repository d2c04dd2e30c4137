-- lock-release.lua: releases a refill lock only if the caller's token still owns it (compare and delete), so a
-- refill whose lock expired never frees the lock of the next owner.
--
-- KEYS[1]  the lock
-- ARGV[1]  the caller's token
-- Reply: 1 when released, 0 when the lock was gone or held by another owner.

if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
