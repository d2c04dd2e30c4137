-- pool-lock.lua: takes the refill lock of one entity's pool for one owner token, unless someone holds it.
--
-- KEYS (all share the hash tag {<prefix>:pool:<entity>}):
--   KEYS[1]  lock   string holding the owner token, expiring after ttlMs
-- ARGV:
--   ARGV[1]  token  random token of this refill
--   ARGV[2]  ttlMs  how long the lock lives if its owner never releases it
-- Reply: 1 when taken, 0 when another owner holds it.

if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 1
end
return 0
