-- pool-unlock.lua: releases the refill lock of one entity's pool only if the caller's token still owns it
-- (compare and delete), so a refill whose lock expired never frees the lock of the next owner.
--
-- KEYS: KEYS[1] the lock. ARGV: ARGV[1] the caller's token. Reply: 1 when released, 0 otherwise.

if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
