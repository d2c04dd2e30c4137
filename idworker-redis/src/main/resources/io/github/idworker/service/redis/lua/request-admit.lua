-- request-admit.lua: admits one signed call to the ID service for one application, atomically across every
-- instance sharing this Redis: refuses a call stamped before this Redis's present identity could have seen its
-- nonce, records its nonce (refusing a replay), checks the entity is allowed, counts the IDs against the
-- application's own limit. Its steps are request-gate.lua's, composed with redis-identity.lua in front of this
-- part; request-admit-take.lua runs the same steps and a pool take in one call.
--
-- KEYS (all share the hash tag {<prefix>:app:<appKey>}, so the script runs on Redis Cluster, and the marker sits
-- on the same node as the nonces it vouches for):
--   KEYS[1]  nonce   string, present while the call's timestamp can still pass on some instance
--   KEYS[2]  rate    hash {sec, count}: IDs admitted in second sec (Redis clock)
--   KEYS[3]  epoch   hash {id, start}: the Redis identity that has kept this application's nonces since start
--                    (epoch ms, Redis clock); no expiry
-- ARGV:
--   ARGV[1]  nonceTtlMs    how long to keep the nonce, an integer of at least 1
--   ARGV[2]  allowed       1 when the application may take from the entity, else 0
--   ARGV[3]  count         IDs asked for, at least 1
--   ARGV[4]  maxPerSecond  the application's limit across all instances
--   ARGV[5]  timestamp     the call's X-Timestamp, epoch ms
--   ARGV[6]  guardMs       calls stamped before start + guardMs are refused: the window plus the clock tolerance,
--                          the latest a call whose nonce was recorded before start can be stamped
-- Reply:
--   {'RESET'}          the call is stamped before start + guardMs: its nonce may have been recorded, then lost
--                      with the data of an earlier identity; nothing recorded or counted
--   {'OK'}             admitted: the nonce is recorded, count is added to this second's IDs
--   {'REPLAY'}         the nonce was recorded before; nothing changed
--   {'FORBIDDEN'}      the nonce is recorded (the call was authentic), nothing counted
--   {'RATE', waitMs}   the nonce is recorded, nothing counted; the window closes in waitMs
--
-- Common path: INFO replication, TIME, HMGET epoch, SET NX, HMGET rate, HINCRBY (six calls); the marker's write
-- and INFO server only when the identity changed.

local info, identity, now = identity_and_time()
local refused, used = gate_admit(info, identity, now)
if refused then
  return refused
end
gate_count(now, used)
return {'OK'}
