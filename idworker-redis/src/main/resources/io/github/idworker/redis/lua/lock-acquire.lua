-- lock-acquire.lua: takes a refill lock (of a segment tag, a serial stock or an ID pool) for one owner token, unless
-- someone holds it.
--
-- KEYS[1]  the lock: a string holding the owner token, expiring after ttlMs; it shares the hash tag of the keys it
--          guards, so scripts that check the token run on the same Redis Cluster node
-- ARGV[1]  token  random token of this refill attempt
-- ARGV[2]  ttlMs  how long the lock lives if its owner never releases it
-- Reply: 1 when taken, 0 when another owner holds it.

if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 1
end
return 0
