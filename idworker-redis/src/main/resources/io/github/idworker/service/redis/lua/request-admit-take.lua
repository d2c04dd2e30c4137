-- request-admit-take.lua: admits one signed call of an application and takes its IDs from an entity's pool, in one
-- call: request-admit.lua's steps (request-gate.lua), then pool-take.lua's (pool-take-steps.lua), composed with
-- redis-identity.lua in front of this part, sharing one INFO replication and one TIME. The application's keys and
-- the pool's carry different hash tags, so this script runs only where every key lives on one server (a single Redis, with or
-- without replicas and Sentinel; never Redis Cluster, where it would be refused with CROSSSLOT): there the
-- service calls request-admit.lua, then pool-take.lua, each on its own node.
--
-- KEYS: request-admit.lua's, then pool-take.lua's:
--   KEYS[1..3]  nonce, rate, epoch of the application, under {<prefix>:app:<appKey>}
--   KEYS[4..6]  ids, meta, rate of the entity, under {<prefix>:pool:<entity>}
-- ARGV: request-admit.lua's, then pool-take.lua's (count is both ARGV[3] and ARGV[7], and must be the same):
--   ARGV[1..6]  nonceTtlMs, allowed, count, the application's maxPerSecond, timestamp, guardMs
--   ARGV[7..9]  count, the entity's maxPerSecond, env
-- Reply:
--   {'GATE', refusal}   request-admit.lua refused the call with refusal ({'RESET'}, {'REPLAY'}, {'FORBIDDEN'} or
--                       {'RATE', waitMs}), recording its nonce where request-admit.lua does; nothing taken
--   any reply of pool-take.lua: {'OK', left, ids} admitted (nonce recorded, count added to the application's
--                       second) and taken; a refusal ({'RATE', ...}, {'EMPTY', ...}, {'ENV', ...}, {'RESET'}) took
--                       nothing and counted nothing against the application, its nonce recorded (the call was
--                       authentic and admitted; a replay of it is refused)
--
-- Common path: INFO replication, TIME, HMGET epoch, SET NX, HMGET rate, HMGET meta, HMGET rate, LLEN, LPOP and two
-- HINCRBY (eleven calls, against thirteen and a second round trip for the two scripts).

local info, identity, now = identity_and_time()
local refused, used = gate_admit(info, identity, now)
if refused then
  return {'GATE', refused}
end
-- the application's count goes in only once the pool's checks passed too, right before the pop
return pool_take(identity, now, KEYS[4], KEYS[5], KEYS[6], tonumber(ARGV[7]), tonumber(ARGV[8]), ARGV[9],
  gate_count, used)
