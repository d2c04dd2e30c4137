-- lock-release.lua: releases a refill lock only if the caller's token still owns it (compare and delete), so a
-- refill whose lock expired never frees the lock of the next owner.
--
-- KEYS[1]  the lock, holding '<token>|<identity>' (lock-acquire.lua)
-- ARGV[1]  the caller's token
-- Reply: 1 when released, 0 when the lock was gone or held by another owner.
--
-- The token alone is compared: a lock brought back by a restart under another identity is nobody's for the checks
-- that guard the stock, but still this caller's to delete (tokens are random, no other caller has this one).

local held = redis.call('GET', KEYS[1])
if held and string.sub(held, 1, #ARGV[1] + 1) == ARGV[1] .. '|' then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
